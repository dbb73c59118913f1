/** Which images the simulated kubelet cannot pull, and the errors it reports for them. */

/**
 * Whether an image matches one of the unpullable patterns: an exact reference, or a glob
 * where `*` matches anything (`registry.invalid/*`, `*:broken`).
 */
export function isUnpullable(patterns: readonly string[], image: string): boolean {
	return patterns.some((p) => {
		if (!p.includes('*')) return p === image;
		const re = new RegExp(`^${p.split('*').map(escapeRegExp).join('.*')}$`);
		return re.test(image);
	});
}

function escapeRegExp(s: string): string {
	return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The fully qualified reference containerd pulls (`busybox` -> `docker.io/library/busybox:latest`). */
export function normalizeImage(image: string): string {
	let ref = image;
	const slash = ref.indexOf('/');
	const first = slash < 0 ? '' : ref.slice(0, slash);
	const hasDomain = first.includes('.') || first.includes(':') || first === 'localhost';
	if (slash < 0) ref = `docker.io/library/${ref}`;
	else if (!hasDomain) ref = `docker.io/${ref}`;
	const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
	if (!lastPart.includes(':') && !ref.includes('@')) ref = `${ref}:latest`;
	return ref;
}

/** The pull error containerd gives for an image that does not exist. */
export function pullError(image: string): string {
	const ref = normalizeImage(image);
	return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}

/** A Go-style duration for event messages (`1.5s`, `15ms`). */
export function goDuration(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)}ms`;
	return `${Number((ms / 1000).toFixed(3))}s`;
}
