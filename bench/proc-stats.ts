/** What Linux says about a process: CPU time (/proc/<pid>/stat) and peak RSS (/proc/<pid>/status). */

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (getconf CLK_TCK; 100 when unknown). */
export function clockTicks(): number {
	if (ticksPerSecond === undefined) {
		const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
		const n = Number.parseInt(r.stdout ?? '', 10);
		ticksPerSecond = Number.isFinite(n) && n > 0 ? n : 100;
	}
	return ticksPerSecond;
}

/** CPU time the process used so far (user + system, ms), or null when it is gone. */
export function cpuMs(pid: number): number | null {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// the command name may hold spaces: the fields start after its closing parenthesis
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// fields[0] is field 3 (state); utime is field 14, stime field 15
		const utime = Number(fields[11]);
		const stime = Number(fields[12]);
		return ((utime + stime) * 1000) / clockTicks();
	} catch {
		return null;
	}
}

/** A line of /proc/<pid>/status in kB (VmHWM, VmRSS), or null. */
function statusKb(pid: number, key: string): number | null {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const m = status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'));
		return m ? Number(m[1]) : null;
	} catch {
		return null;
	}
}

/** Peak resident memory of the process so far (MB, from VmHWM), or null. */
export function peakRssMb(pid: number): number | null {
	const kb = statusKb(pid, 'VmHWM');
	return kb === null ? null : kb / 1024;
}

/** Resident memory now (MB, VmRSS), or null. */
export function rssMb(pid: number): number | null {
	const kb = statusKb(pid, 'VmRSS');
	return kb === null ? null : kb / 1024;
}
