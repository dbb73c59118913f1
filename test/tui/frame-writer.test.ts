import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../../source/tui/render/frame-writer.js';

class FakeTerminal extends EventEmitter {
	columns = 40;
	rows = 10;
	writes: string[] = [];
	write(s: string) {
		this.writes.push(s);
		return true;
	}
}

/** The rows a write drew, as row -> text. */
function drawn(write: string): Map<number, string> {
	const out = new Map<number, string>();
	for (const m of write.matchAll(/\u001b\[(\d+);1H([^\u001b]*)\u001b\[0m\u001b\[K/g))
		out.set(Number(m[1]), m[2] ?? '');
	return out;
}

describe('frame writer', () => {
	it('draws the first frame in full on a cleared screen, then only the changed lines', async () => {
		const term = new FakeTerminal();
		const w = new FrameWriter(term as unknown as NodeJS.WriteStream, 0);
		w.write('one\ntwo\nthree\n');
		expect(term.writes[0]).toContain('\u001b[2J');
		expect([...drawn(term.writes[0] ?? '').entries()]).toEqual([
			[1, 'one'],
			[2, 'two'],
			[3, 'three'],
		]);
		await new Promise((r) => setTimeout(r, 5));
		w.write('one\nTWO\nthree\n');
		expect(term.writes[1]).not.toContain('\u001b[2J');
		expect([...drawn(term.writes[1] ?? '').entries()]).toEqual([[2, 'TWO']]);
		expect(term.writes[1]).toMatch(/^\u001b\[\?2026h.*\u001b\[\?2026l$/s);
		await new Promise((r) => setTimeout(r, 5));
		w.write('one\nTWO\nthree\n');
		expect(term.writes.length).toBe(2);
		w.close();
	});

	it('clears lines a shorter frame no longer has, and redraws in full after a resize', async () => {
		const term = new FakeTerminal();
		const w = new FrameWriter(term as unknown as NodeJS.WriteStream, 0);
		let resized = 0;
		w.on('resize', () => resized++);
		w.write('a\nb\nc\n');
		await new Promise((r) => setTimeout(r, 5));
		w.write('a\nb\n');
		expect([...drawn(term.writes[1] ?? '').entries()]).toEqual([[3, '']]);
		term.emit('resize');
		expect(resized).toBe(1);
		await new Promise((r) => setTimeout(r, 5));
		w.write('a\nb\n');
		expect(term.writes[2]).toContain('\u001b[2J');
		expect(drawn(term.writes[2] ?? '').size).toBe(2);
		w.close();
	});

	it('keeps only the latest frame while throttled, and ignores cursor show/hide', async () => {
		const term = new FakeTerminal();
		const w = new FrameWriter(term as unknown as NodeJS.WriteStream, 30);
		w.write('1\n');
		w.write('2\n');
		w.write('\u001b[?25h');
		w.write('3\n');
		expect(term.writes.length).toBe(1);
		await new Promise((r) => setTimeout(r, 60));
		expect(term.writes.length).toBe(2);
		expect([...drawn(term.writes[1] ?? '').values()]).toEqual(['3']);
		w.close();
	});

	it('draws nothing while paused and everything on resume', async () => {
		const term = new FakeTerminal();
		const w = new FrameWriter(term as unknown as NodeJS.WriteStream, 0);
		w.write('x\n');
		w.pause();
		await new Promise((r) => setTimeout(r, 5));
		w.write('y\n');
		expect(term.writes.length).toBe(1);
		w.resume();
		expect(term.writes.length).toBe(2);
		expect(term.writes[1]).toContain('\u001b[2J');
		w.close();
	});
});
