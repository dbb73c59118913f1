/** The narrated demo's pacer: a line every interval, or at once with next(); pause and resume. */

import { describe, expect, it } from 'vitest';
import { createPacer, fakePacerClock } from '../../source/engine/pacer.js';

function setup(intervalMs = 3000, maxWaiting?: number) {
	const clock = fakePacerClock();
	const out: string[] = [];
	const pacer = createPacer<string>({
		intervalMs,
		clock,
		release: (s) => out.push(s),
		...(maxWaiting !== undefined ? { maxWaiting } : {}),
	});
	return { clock, out, pacer };
}

describe('the pacer', () => {
	it('releases the first line at once, then one per interval', () => {
		const { clock, out, pacer } = setup();
		pacer.push('a');
		pacer.push('b');
		pacer.push('c');
		expect(out).toEqual(['a']);
		expect(pacer.state()).toEqual({ current: 'a', waiting: 2, paused: false });
		clock.advance(2999);
		expect(out).toEqual(['a']);
		clock.advance(1);
		expect(out).toEqual(['a', 'b']);
		clock.advance(3000);
		expect(out).toEqual(['a', 'b', 'c']);
		// after a quiet spell longer than the interval, a new line comes at once
		clock.advance(10_000);
		pacer.push('d');
		expect(out).toEqual(['a', 'b', 'c', 'd']);
	});

	it('next() releases at once and restarts the interval from there', () => {
		const { clock, out, pacer } = setup();
		for (const s of ['a', 'b', 'c', 'd']) pacer.push(s);
		clock.advance(2000);
		expect(pacer.next()).toBe(true);
		expect(out).toEqual(['a', 'b']);
		clock.advance(2999);
		expect(out).toEqual(['a', 'b']);
		clock.advance(1);
		expect(out).toEqual(['a', 'b', 'c']);
		pacer.next();
		expect(pacer.next()).toBe(false);
		expect(out).toEqual(['a', 'b', 'c', 'd']);
	});

	it('pause holds every line, next() still steps, resume goes on one interval later', () => {
		const { clock, out, pacer } = setup();
		for (const s of ['a', 'b', 'c', 'd']) pacer.push(s);
		// the console binds the methods as they are (Space: toggle, n: next)
		const { toggle } = pacer;
		expect(toggle()).toBe(true);
		clock.advance(60_000);
		expect(out).toEqual(['a']);
		expect(pacer.state().paused).toBe(true);
		expect(clock.pending()).toBe(0);
		pacer.next();
		clock.advance(60_000);
		expect(out).toEqual(['a', 'b']);
		expect(toggle()).toBe(false);
		clock.advance(2999);
		expect(out).toEqual(['a', 'b']);
		clock.advance(1);
		expect(out).toEqual(['a', 'b', 'c']);
	});

	it('a push while paused waits', () => {
		const { clock, out, pacer } = setup();
		pacer.pause();
		pacer.push('a');
		clock.advance(10_000);
		expect(out).toEqual([]);
		pacer.resume();
		clock.advance(3000);
		expect(out).toEqual(['a']);
	});

	it('idle() resolves once every line is out', async () => {
		const { clock, pacer } = setup();
		pacer.push('a');
		pacer.push('b');
		let idle = false;
		const p = pacer.idle().then(() => {
			idle = true;
		});
		await Promise.resolve();
		expect(idle).toBe(false);
		clock.advance(3000);
		await p;
		expect(idle).toBe(true);
		await pacer.idle();
	});

	it('drops the oldest waiting lines past its bound, and stop() ends the clock', async () => {
		const { clock, out, pacer } = setup(1000, 2);
		for (const s of ['a', 'b', 'c', 'd', 'e']) pacer.push(s);
		expect(pacer.dropped()).toBe(2);
		clock.advance(5000);
		expect(out).toEqual(['a', 'd', 'e']);
		pacer.push('f');
		pacer.push('g');
		pacer.stop();
		await pacer.idle();
		clock.advance(5000);
		expect(out).toEqual(['a', 'd', 'e', 'f']);
	});
});
