/**
 * What a simulated container runs as PID 1, read from its command, and what follows from
 * that: whether it ignores SIGTERM (PID 1 ignores a signal it has no handler for, so `sleep`
 * and a plain shell stay until SIGKILL), and the lines it writes to its log.
 */

/** The kind of program a container runs as PID 1. */
export type Pid1Kind =
	/** No command: the image's own entrypoint, which handles SIGTERM. */
	| 'entrypoint'
	/** Corral's privileged bootstrap: seeds /corral-rootfs, then `exec chroot ... sleep infinity`. */
	| 'bootstrap'
	/** A program with no SIGTERM handler: sleep, a shell, tail, cat. */
	| 'idle'
	/** Any other program: assumed to handle SIGTERM. */
	| 'program';

/** The parts of a container spec that say what it runs. */
export interface ContainerCommand {
	command?: string[];
	args?: string[];
	securityContext?: { privileged?: boolean };
}

/** Programs that, as PID 1, have no handler for SIGTERM. */
const IGNORES_SIGTERM = new Set(['sleep', 'sh', 'bash', 'ash', 'dash', 'zsh', 'tail', 'cat']);

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);

/** The directory Corral's bootstrap seeds a privileged member's root file system into. */
export const ROOTFS = '/corral-rootfs';

function baseName(path: string): string {
	return path.slice(path.lastIndexOf('/') + 1);
}

/** The program a shell script finally runs as PID 1: its last `exec`, past `chroot DIR`. */
function execTarget(script: string): string | undefined {
	const execs = [...script.matchAll(/(?:^|[;&|\s'"])exec\s+([^\s;'"]+)/g)];
	const last = execs[execs.length - 1]?.[1];
	if (last === undefined) return undefined;
	// `exec chroot DIR sh`: an exec inside that shell's script comes later in the text and was
	// matched instead, so a chroot last means its shell stays PID 1.
	return baseName(last) === 'chroot' ? 'sh' : baseName(last);
}

/** What kind of program the container runs as PID 1. */
export function pid1Kind(c: ContainerCommand): Pid1Kind {
	if (!c.command || c.command.length === 0) return 'entrypoint';
	const argv = [...c.command, ...(c.args ?? [])];
	const prog = baseName(argv[0] ?? '');
	if (SHELLS.has(prog) && argv[1] === '-c' && typeof argv[2] === 'string') {
		const script = argv[2];
		if (script.includes(ROOTFS) && /\bchroot\b/.test(script)) return 'bootstrap';
		const target = execTarget(script);
		if (target === undefined) return 'idle';
		return IGNORES_SIGTERM.has(target) ? 'idle' : 'program';
	}
	return IGNORES_SIGTERM.has(prog) ? 'idle' : 'program';
}

/**
 * Whether PID 1 ignores SIGTERM, so that the container stays until the grace period ends.
 * Corral's bootstrap ends in `exec sleep infinity` inside the chroot: it ignores it too.
 */
export function ignoresSigterm(kind: Pid1Kind): boolean {
	return kind === 'idle' || kind === 'bootstrap';
}

/**
 * The lines a container writes as it starts. `seeded` tells Corral's bootstrap whether its
 * volume already holds the marker of an earlier seeding.
 */
export function startLines(kind: Pid1Kind, image: string, seeded: boolean): string[] {
	switch (kind) {
		case 'bootstrap':
			return [
				...(seeded
					? [`corral: ${ROOTFS} is already seeded (${ROOTFS}/.corral-seeded exists); keeping it`]
					: [
							`corral: seeding the root file system of ${image} into ${ROOTFS}`,
							`corral: cp -a --one-file-system / ${ROOTFS}`,
							`corral: seeded; wrote ${ROOTFS}/.corral-seeded`,
						]),
				`corral: mounting /proc, /sys and /dev into ${ROOTFS}`,
				`corral: entering chroot ${ROOTFS}`,
			];
		case 'entrypoint':
			return [`entrypoint: starting ${image}`, 'entrypoint: ready'];
		default:
			return [];
	}
}

/** The lines a container writes before it exits with status 1 (a crash). */
export function crashLines(kind: Pid1Kind, seeded: boolean): string[] {
	switch (kind) {
		case 'bootstrap':
			return seeded
				? [`chroot: can't execute '/bin/sh': No such file or directory`]
				: [`cp: write error: No space left on device`, `corral: seeding ${ROOTFS} failed`];
		case 'entrypoint':
			return [
				'entrypoint: fatal: cannot write to /data: Input/output error',
				'entrypoint: exiting with status 1',
			];
		default:
			return ['fatal: cannot write to /data: Input/output error; exiting with status 1'];
	}
}

/** The lines a container writes when it gets SIGTERM and handles it (only a handler does). */
export function stopLines(kind: Pid1Kind): string[] {
	return kind === 'entrypoint' ? ['entrypoint: received SIGTERM; shutting down'] : [];
}
