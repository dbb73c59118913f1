/**
 * The tiny file tree each simulated pod has: /etc/hostname, /etc/os-release, /data/README and
 * a few directories. Changes made in one exec session are there in the next one, for as long
 * as the pod (by uid) lives; what is under a volume mount lives on the volume (a PVC, by uid),
 * so it outlives the pod. A container that runs Corral's privileged bootstrap has its volume
 * seeded with the image's root file system once (and the marker written), and /proc, /sys and
 * /dev bind-mounted into it, as the script does.
 */

import type { SimStore } from './store-api.js';

/** A file or a directory. */
export type FsNode =
	| { kind: 'file'; content: string; mtime: number }
	| { kind: 'dir'; entries: Map<string, FsNode>; mtime: number };

/** What a pod's file tree is made from. */
export interface FilesPod {
	name: string;
	namespace: string;
	podIP?: string;
	/** Mount paths of the container's volumes (`/data`, `/corral-rootfs`). */
	mounts: string[];
	/** The claim behind /data, for the README. */
	claimName?: string;
	/** The volumes mounted, by mount path: a PVC's tree, shared by every pod that mounts it. */
	volumes?: Record<string, Volume>;
	/** The container runs Corral's privileged bootstrap (see bootstrapOf). */
	bootstrap?: Bootstrap | null;
}

/** A volume's file tree, and whether it was just made (empty). */
export interface Volume {
	root: FsNode & { kind: 'dir' };
	fresh: boolean;
}

/** What Corral's bootstrap script does: seed ROOTFS from the image once (MARKER), then chroot. */
export interface Bootstrap {
	rootfs: string;
	marker: string;
}

/**
 * The bootstrap a container's command runs, read from the script itself (`/bin/sh -c` with
 * `ROOTFS="..."`, `MARKER="..."` and `cp -a --one-file-system`), or null.
 */
export function bootstrapOf(command: readonly string[] | undefined): Bootstrap | null {
	if (command?.length !== 3 || command[1] !== '-c') return null;
	if (command[0] !== '/bin/sh' && command[0] !== 'sh') return null;
	const script = command[2] ?? '';
	const rootfs = /^ROOTFS="([^"]+)"$/m.exec(script)?.[1];
	const marker = /^MARKER="([^"]+)"$/m.exec(script)?.[1];
	if (!rootfs || !marker || !script.includes('cp -a --one-file-system')) return null;
	return { rootfs, marker };
}

/** Names of the programs in /bin. */
export const BIN_PROGRAMS = [
	'ash',
	'bash',
	'cat',
	'chroot',
	'clear',
	'date',
	'df',
	'echo',
	'env',
	'false',
	'grep',
	'head',
	'hostname',
	'id',
	'ls',
	'mkdir',
	'pwd',
	'rm',
	'sh',
	'sleep',
	'stty',
	'touch',
	'tput',
	'true',
	'uname',
	'wc',
	'whoami',
];

/** An error of a file operation, worded as busybox words it (`No such file or directory`). */
export class FsError extends Error {}

const NOT_FOUND = 'No such file or directory';

/** The file tree of one pod. */
export class PodFiles {
	readonly root: FsNode & { kind: 'dir' };

	constructor(pod: FilesPod, now: number = Date.now()) {
		this.root = dir(now);
		const mk = (path: string) => this.mkdirs(path, now);
		for (const d of [
			'/bin',
			'/dev',
			'/etc',
			'/home',
			'/proc',
			'/root',
			'/tmp',
			'/usr/bin',
			'/var/log',
		]) {
			mk(d);
		}
		for (const p of BIN_PROGRAMS) this.put(`/bin/${p}`, '', now);
		this.put('/dev/null', '', now);
		this.put('/etc/hostname', `${pod.name}\n`, now);
		this.put(
			'/etc/hosts',
			`# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n${pod.podIP ?? '10.244.0.2'}\t${pod.name}\n`,
			now,
		);
		this.put(
			'/etc/os-release',
			'PRETTY_NAME="Corral Desktop (simulated) 1.0"\nNAME="Corral Desktop"\nVERSION_ID="1.0"\nID=corral-desktop\nID_LIKE=debian\nHOME_URL="https://corral.dev/"\n',
			now,
		);
		this.put(
			'/etc/passwd',
			'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
			now,
		);
		this.put(
			'/etc/resolv.conf',
			`search ${pod.namespace}.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n`,
			now,
		);
		this.put(
			'/root/.profile',
			'# ~/.profile: executed by the command interpreter for login shells.\n',
			now,
		);
		const volumes = pod.volumes;
		const readme = `This is the data volume of ${pod.name}${pod.claimName ? ` (claim ${pod.claimName})` : ''}.\nFiles here survive a stop and a start of the desktop; a release destroys them.\n`;
		if (!volumes) {
			// No volumes known: the pod's own tree has the mounts (and a /data README).
			for (const m of new Set(['/data', ...pod.mounts])) mk(m);
			this.put('/data/README', readme, now);
			return;
		}
		for (const m of pod.mounts) mk(m);
		const image = cloneDir(this.root);
		for (const [path, volume] of Object.entries(volumes)) {
			this.attach(path, volume.root);
			if (!volume.fresh) continue;
			volume.fresh = false;
			if (path === '/data') this.put('/data/README', readme, now);
		}
		const boot = pod.bootstrap;
		if (boot && volumes[boot.rootfs]) this.runBootstrap(boot, image, now);
	}

	/**
	 * What the bootstrap does in the container: on first boot (no marker) it copies the image's
	 * root file system into ROOTFS and writes the marker; on every boot it bind-mounts /proc,
	 * /sys and /dev into ROOTFS (the same directories, seen from both sides).
	 */
	private runBootstrap(boot: Bootstrap, image: FsNode & { kind: 'dir' }, now: number): void {
		if (!this.lookup(boot.marker)) {
			const rootfs = this.lookup(boot.rootfs) as FsNode & { kind: 'dir' };
			for (const [name, node] of image.entries) {
				// --one-file-system: the other file systems (proc, sys, dev, the volume) stay empty.
				const other = ['proc', 'sys', 'dev'].includes(name) || `/${name}` === boot.rootfs;
				rootfs.entries.set(name, other ? dir(now) : cloneNode(node));
			}
			this.put(boot.marker, '', now);
		}
		for (const fs of ['proc', 'sys', 'dev']) {
			this.mkdirs(`/${fs}`, now);
			this.attach(`${boot.rootfs}/${fs}`, this.lookup(`/${fs}`) as FsNode & { kind: 'dir' });
		}
	}

	/** Puts a directory tree at a path (a mount): the same tree, seen from there. */
	private attach(abs: string, node: FsNode & { kind: 'dir' }): void {
		const { parent, name } = this.parentOf(abs);
		parent.entries.set(name, node);
	}

	/** The same tree seen from one of its directories as its root (what chroot does). */
	static rootedAt(node: FsNode & { kind: 'dir' }): PodFiles {
		const view = Object.create(PodFiles.prototype) as PodFiles;
		Object.defineProperty(view, 'root', { value: node, enumerable: true });
		return view;
	}

	/** The absolute, normalised form of path, seen from cwd. */
	resolve(cwd: string, path: string): string {
		const parts = (path.startsWith('/') ? path : `${cwd}/${path}`).split('/');
		const out: string[] = [];
		for (const p of parts) {
			if (p === '' || p === '.') continue;
			if (p === '..') out.pop();
			else out.push(p);
		}
		return `/${out.join('/')}`;
	}

	/** The node at an absolute path, or undefined. */
	lookup(abs: string): FsNode | undefined {
		let node: FsNode = this.root;
		for (const part of abs.split('/').filter(Boolean)) {
			if (node.kind !== 'dir') return undefined;
			const next = node.entries.get(part);
			if (!next) return undefined;
			node = next;
		}
		return node;
	}

	/** Reads a file; throws FsError for a missing file or a directory. */
	read(abs: string): string {
		const node = this.lookup(abs);
		if (!node) throw new FsError(NOT_FOUND);
		if (node.kind === 'dir') throw new FsError('Is a directory');
		return node.content;
	}

	/** Writes (or appends to) a file; /dev/null swallows everything. */
	write(abs: string, content: string, append = false, now: number = Date.now()): void {
		if (abs === '/dev/null' && this.lookup(abs)) return;
		const { parent, name } = this.parentOf(abs);
		const old = parent.entries.get(name);
		if (old?.kind === 'dir') throw new FsError('Is a directory');
		const base = append && old?.kind === 'file' ? old.content : '';
		parent.entries.set(name, { kind: 'file', content: base + content, mtime: now });
		parent.mtime = now;
	}

	/** Creates a directory (with -p semantics when parents is true). */
	mkdir(abs: string, parents = false, now: number = Date.now()): void {
		if (parents) {
			this.mkdirs(abs, now);
			return;
		}
		const { parent, name } = this.parentOf(abs);
		if (parent.entries.has(name)) throw new FsError('File exists');
		parent.entries.set(name, dir(now));
		parent.mtime = now;
	}

	/** Removes a file, or a directory when recursive. */
	remove(abs: string, recursive = false): void {
		if (abs === '/') throw new FsError('Permission denied');
		const { parent, name } = this.parentOf(abs);
		const node = parent.entries.get(name);
		if (!node) throw new FsError(NOT_FOUND);
		if (node.kind === 'dir' && !recursive) throw new FsError('Is a directory');
		parent.entries.delete(name);
	}

	/** Bytes used under a path (for df). */
	usage(abs: string): number {
		const node = this.lookup(abs);
		if (!node) return 0;
		if (node.kind === 'file') return node.content.length;
		let n = 4096;
		for (const child of node.entries.values()) {
			n += child.kind === 'file' ? Math.max(4096, child.content.length) : this.usageOf(child);
		}
		return n;
	}

	private usageOf(node: FsNode): number {
		if (node.kind === 'file') return Math.max(4096, node.content.length);
		let n = 4096;
		for (const child of node.entries.values()) n += this.usageOf(child);
		return n;
	}

	private parentOf(abs: string): { parent: FsNode & { kind: 'dir' }; name: string } {
		const slash = abs.lastIndexOf('/');
		const parentPath = abs.slice(0, slash) || '/';
		const name = abs.slice(slash + 1);
		const parent = this.lookup(parentPath);
		if (!parent || !name) throw new FsError(NOT_FOUND);
		if (parent.kind !== 'dir') throw new FsError('Not a directory');
		return { parent, name };
	}

	private mkdirs(abs: string, now: number): void {
		let node: FsNode & { kind: 'dir' } = this.root;
		for (const part of abs.split('/').filter(Boolean)) {
			const found = node.entries.get(part);
			const next = found ?? dir(now);
			if (!found) node.entries.set(part, next);
			if (next.kind !== 'dir') throw new FsError('Not a directory');
			node = next;
		}
	}

	private put(abs: string, content: string, now: number): void {
		this.write(abs, content, false, now);
	}
}

function dir(now: number): FsNode & { kind: 'dir' } {
	return { kind: 'dir', entries: new Map(), mtime: now };
}

function cloneNode(node: FsNode): FsNode {
	return node.kind === 'file' ? { ...node } : cloneDir(node);
}

function cloneDir(node: FsNode & { kind: 'dir' }): FsNode & { kind: 'dir' } {
	const entries = new Map<string, FsNode>();
	for (const [name, child] of node.entries) entries.set(name, cloneNode(child));
	return { kind: 'dir', entries, mtime: node.mtime };
}

const volumesByStore = new WeakMap<SimStore, Map<string, Volume>>();

/**
 * The file tree of a volume (a PVC, by uid), made empty on first use and kept for every pod
 * that mounts it later; a deleted PVC's new namesake has another uid, so it starts empty.
 */
export function volumeTree(store: SimStore, uid: string): Volume {
	let volumes = volumesByStore.get(store);
	if (!volumes) {
		volumes = new Map();
		volumesByStore.set(store, volumes);
	}
	let v = volumes.get(uid);
	if (!v) {
		v = { root: dir(Date.now()), fresh: true };
		volumes.set(uid, v);
		while (volumes.size > KEEP) {
			const oldest = volumes.keys().next();
			if (oldest.done) break;
			volumes.delete(oldest.value);
		}
	}
	return v;
}

/** How many pods' trees a store keeps; the oldest are forgotten past it. */
const KEEP = 2000;
const byStore = new WeakMap<SimStore, Map<string, PodFiles>>();

/** The file tree of a pod (by uid), made on first use and kept for later sessions. */
export function podFiles(store: SimStore, uid: string, pod: FilesPod): PodFiles {
	let trees = byStore.get(store);
	if (!trees) {
		trees = new Map();
		byStore.set(store, trees);
	}
	let files = trees.get(uid);
	if (!files) {
		files = new PodFiles(pod);
		trees.set(uid, files);
		while (trees.size > KEEP) {
			const oldest = trees.keys().next();
			if (oldest.done) break;
			trees.delete(oldest.value);
		}
	}
	return files;
}
