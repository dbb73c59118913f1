/**
 * The Corral CT model (Corral's `pkg/ct`): the `corral.ct/spec` annotation in Corral's shape,
 * read in either shape, and what a CT's pod runs (command, mount), so that a member is a
 * normal Corral Container and its pod can be held against what its source makes.
 */

import { CONTAINER_NAME, CT_SPEC_ANNOTATION, DATA_MOUNT, ROOTFS_MOUNT } from './names.js';
import type { Parsed } from './object-shape.js';
import type { ContainerSpec, PodObject } from './objects.js';
import { parseQuantity } from './quantity.js';
import type { SourceFields } from './spec.js';

/** The CT spec as Corral records it on a CT's data PVC: what its pod is made from. */
export interface CtSpec {
	image: string;
	/** Whole cores. */
	cpu: number;
	/** A memory quantity. */
	mem: string;
	privileged: boolean;
	/** Run the image's own entrypoint (unprivileged only; a privileged CT runs the bootstrap). */
	init: boolean;
}

/** The marker a privileged CT's bootstrap writes once its root file system is seeded. */
export const ROOTFS_MARKER = `${ROOTFS_MOUNT}/.corral-seeded`;

/**
 * The bootstrap a privileged CT runs as `/bin/sh -c`, as Corral's pkg/ct writes it: on first
 * boot it copies the image's root file system into the PVC and writes the marker; on every
 * boot it bind-mounts /proc, /sys and /dev into it and chroots there.
 */
export const BOOTSTRAP_SCRIPT = `set -e
ROOTFS="${ROOTFS_MOUNT}"
MARKER="${ROOTFS_MARKER}"
if [ ! -e "$MARKER" ]; then
  echo "corral: seeding persistent rootfs from image..."
  cp -a --one-file-system /. "$ROOTFS"
  touch "$MARKER"
  echo "corral: seed complete"
fi
for fs in proc sys dev; do
  mkdir -p "$ROOTFS/$fs"
  mount --rbind "/$fs" "$ROOTFS/$fs"
done
exec chroot "$ROOTFS" /bin/sh -c 'cd /root 2>/dev/null || cd /; exec sleep infinity'`;

/** The command of a CT's container; undefined means the image's own entrypoint. */
export function ctCommand(ct: Pick<CtSpec, 'privileged' | 'init'>): string[] | undefined {
	if (ct.privileged) return ['/bin/sh', '-c', BOOTSTRAP_SCRIPT];
	return ct.init ? undefined : ['sleep', 'infinity'];
}

/** Where a CT mounts its data PVC: its root file system when privileged, else /data. */
export function ctMountPath(privileged: boolean): string {
	return privileged ? ROOTFS_MOUNT : DATA_MOUNT;
}

/** The command a console runs in a CT: a chroot into the PVC's root when privileged, else sh. */
export function ctConsoleCommand(privileged: boolean): string[] {
	return privileged
		? ['chroot', ROOTFS_MOUNT, '/bin/sh', '-c', 'exec bash 2>/dev/null || exec sh']
		: ['sh'];
}

/** The CT spec of a pool's source fields. */
export function ctSpecOf(src: SourceFields): CtSpec {
	return {
		image: src.image,
		cpu: Number(src.cpu),
		mem: src.memory,
		privileged: src.privileged,
		init: src.init,
	};
}

/** The annotation text as Corral writes it: image, cpu, mem, privileged, and init only when true. */
export function ctSpecJson(ct: CtSpec): string {
	const o: Record<string, unknown> = {
		image: ct.image,
		cpu: ct.cpu,
		mem: ct.mem,
		privileged: ct.privileged,
	};
	if (ct.init) o.init = true;
	return JSON.stringify(o);
}

/** A CT spec read back: the spec, and the source fields it names (older builds name disk and storageClass too). */
export interface ReadCtSpec {
	ct: CtSpec;
	/** The source fields the annotation holds (the older shape holds all seven). */
	fields: Partial<SourceFields>;
}

/** The most characters of a `corral.ct/spec` annotation read (Corral's is under 200). */
export const CT_SPEC_TEXT_MAX = 64 * 1024;
/** The most characters of an image reference (as isImageReference bounds it). */
export const CT_IMAGE_MAX = 512;
/** The most whole cores a CT spec may name. */
export const CT_CPU_MAX = 1024;

/** Thrown inside readCtSpec only, for the one problem it reports. */
class CtSpecProblem {
	constructor(readonly text: string) {}
}

function ctFail(what: string): never {
	throw new CtSpecProblem(`${CT_SPEC_ANNOTATION}: ${what}`);
}

/** A memory quantity of more than zero bytes, or the problem. */
function ctMemory(v: unknown, key: string): string {
	if (typeof v !== 'string' || !(Number(parseQuantity(v)) > 0))
		ctFail(`${key} is not a memory quantity such as 512Mi`);
	return v;
}

/**
 * Reads a `corral.ct/spec` annotation in Corral's shape (`{"image","cpu":int,"mem",
 * "privileged","init"}`, missing values taken as Corral takes them: cpu 1, mem 512Mi) or in
 * the shape older ctpool builds wrote (seven sorted source fields, cpu a string, `memory`).
 * Null when it is absent; a named problem when it is unreadable: not a JSON object, an image
 * that is empty or longer than 512 characters, cpu not whole cores 1..1024, a memory that is
 * not a quantity, privileged or init not true or false. Never throws.
 */
export function readCtSpec(text: unknown): Parsed<ReadCtSpec> | null {
	if (text === undefined || text === null || text === '') return null;
	try {
		if (typeof text !== 'string') ctFail('is not text');
		if (text.length > CT_SPEC_TEXT_MAX) ctFail(`is longer than ${CT_SPEC_TEXT_MAX} characters`);
		let raw: unknown;
		try {
			raw = JSON.parse(text);
		} catch {
			ctFail('is not JSON');
		}
		if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
			ctFail('is not a JSON object');
		const o = raw as Record<string, unknown>;
		if (typeof o.image !== 'string' || o.image === '') ctFail('image is missing');
		if (o.image.length > CT_IMAGE_MAX) ctFail(`image is longer than ${CT_IMAGE_MAX} characters`);
		for (const key of ['privileged', 'init'] as const)
			if (o[key] !== undefined && typeof o[key] !== 'boolean')
				ctFail(`${key} is not true or false`);
		const flags = { privileged: o.privileged === true, init: o.init === true };
		const value =
			typeof o.cpu === 'string' || typeof o.memory === 'string'
				? olderShape(o, o.image, flags)
				: corralShape(o, o.image, flags);
		return { ok: true, value };
	} catch (err) {
		if (err instanceof CtSpecProblem) return { ok: false, problem: err.text };
		return { ok: false, problem: `${CT_SPEC_ANNOTATION}: is unreadable` };
	}
}

/**
 * Reads a `corral.ct/spec` annotation (see readCtSpec); null when it is absent or unreadable.
 */
export function parseCtSpec(text: string | undefined): ReadCtSpec | null {
	const read = readCtSpec(text);
	return read?.ok ? read.value : null;
}

type CtFlags = Pick<CtSpec, 'privileged' | 'init'>;

/** Corral's shape: Go decodes cpu into an int and mem into a string; zero values default. */
function corralShape(o: Record<string, unknown>, image: string, flags: CtFlags): ReadCtSpec {
	if (
		o.cpu !== undefined &&
		(typeof o.cpu !== 'number' || !Number.isInteger(o.cpu) || o.cpu < 0 || o.cpu > CT_CPU_MAX)
	)
		ctFail(`cpu is not whole cores 1..${CT_CPU_MAX}`);
	const mem = o.mem === undefined || o.mem === '' ? '512Mi' : ctMemory(o.mem, 'mem');
	const cpu = (o.cpu as number | undefined) || 1;
	return {
		ct: { image, cpu, mem, ...flags },
		fields: {
			image,
			cpu: o.cpu === undefined ? '1' : (o.cpu as number),
			memory: mem,
			...flags,
		},
	};
}

/** The shape of older ctpool builds: cpu a quantity string (rounded up to whole cores), memory. */
function olderShape(o: Record<string, unknown>, image: string, flags: CtFlags): ReadCtSpec {
	const cpuText = o.cpu ?? '1';
	const cores = typeof cpuText === 'string' ? parseQuantity(cpuText) : null;
	if (cores === null || cores <= 0 || Math.ceil(cores) > CT_CPU_MAX)
		ctFail(`cpu is not a number of cores 1..${CT_CPU_MAX}`);
	const memory = ctMemory(o.memory ?? '512Mi', 'memory');
	const fields: Partial<SourceFields> = { image, cpu: cpuText as string, memory, ...flags };
	if (typeof o.disk === 'string' && o.disk.length <= 64) fields.disk = o.disk;
	if (typeof o.storageClass === 'string' && o.storageClass.length <= 253)
		fields.storageClass = o.storageClass;
	return { ct: { image, cpu: Math.ceil(cores), mem: memory, ...flags }, fields };
}

/**
 * How a member's pod differs from what a CT spec makes (image, cpu, memory, privileged,
 * command), one line each: `image: pool desktop:2, pod other:9`. Empty when it matches, or
 * when the pod was read without its containers.
 */
export function podDifferences(pod: PodObject, ct: CtSpec): string[] {
	// A pod read without its containers (a partial object) cannot be compared.
	const containers: ContainerSpec[] | undefined = pod.spec?.containers;
	if (!containers) return [];
	const c = containers.find((x) => x.name === CONTAINER_NAME);
	if (!c)
		return [
			`container: pool ${CONTAINER_NAME}, pod ${containers.map((x) => x.name).join(',') || 'none'}`,
		];
	const out: string[] = [];
	if (c.image !== ct.image) out.push(`image: pool ${ct.image}, pod ${c.image ?? 'none'}`);
	const quantity = (key: 'cpu' | 'memory', want: string) => {
		for (const side of ['limits', 'requests'] as const) {
			const got = c.resources?.[side]?.[key];
			const have =
				typeof got === 'string' ? got : typeof got === 'number' ? String(got) : undefined;
			if (have === undefined || parseQuantity(have) !== parseQuantity(want)) {
				out.push(
					`${key}: pool ${want}, pod ${have ?? 'none'}${side === 'requests' ? ' (requests)' : ''}`,
				);
				return;
			}
		}
	};
	quantity('cpu', String(ct.cpu));
	quantity('memory', ct.mem);
	const privileged = c.securityContext?.privileged === true;
	if (privileged !== ct.privileged)
		out.push(`privileged: pool ${ct.privileged}, pod ${privileged}`);
	const want = ctCommand(ct);
	const have = c.command && c.command.length > 0 ? c.command : undefined;
	if (!sameArgv(want, have) || (c.args !== undefined && c.args.length > 0))
		out.push(`command: pool ${showCommand(want)}, pod ${showCommand(have, c.args)}`);
	return out;
}

function sameArgv(a: string[] | undefined, b: string[] | undefined): boolean {
	if (a === undefined || b === undefined) return a === b;
	return a.length === b.length && a.every((x, i) => x === b[i]);
}

function showCommand(cmd: string[] | undefined, args?: string[]): string {
	const all = [...(cmd ?? []), ...(args ?? [])];
	if (cmd === undefined && all.length === 0) return "the image's entrypoint";
	if (cmd !== undefined && cmd[2] === BOOTSTRAP_SCRIPT && cmd.length === 3)
		return 'the privileged bootstrap';
	const text = all.join(' ');
	return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** A PVC as far as its CT spec goes. */
export interface CtPvc {
	metadata?: { annotations?: Record<string, string>; labels?: Record<string, string> };
	spec?: { resources?: { requests?: Record<string, unknown> }; storageClassName?: string };
}

/**
 * The CT spec a PVC records (its `corral.ct/spec` annotation, in Corral's shape or the older
 * one) and the source fields it names, disk and storageClass read from the PVC itself when the
 * annotation does not hold them; null when the annotation is missing or unreadable.
 */
export function pvcCtSpec(pvc: CtPvc): ReadCtSpec | null {
	const read = parseCtSpec(pvc.metadata?.annotations?.[CT_SPEC_ANNOTATION]);
	if (!read) return null;
	const storage = pvc.spec?.resources?.requests?.storage;
	const fields = { ...read.fields };
	if (fields.disk === undefined && typeof storage === 'string') fields.disk = storage;
	if (fields.storageClass === undefined && pvc.spec)
		fields.storageClass = pvc.spec.storageClassName ?? '';
	return { ct: read.ct, fields };
}

/** The source fields a PVC's CT spec annotation names (see pvcCtSpec); null when unreadable. */
export function pvcSource(pvc: CtPvc): Partial<SourceFields> | null {
	return pvcCtSpec(pvc)?.fields ?? null;
}
