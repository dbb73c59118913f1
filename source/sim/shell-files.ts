/**
 * The tiny file tree each simulated pod has: /etc/hostname, /etc/os-release, /data/README and
 * a few directories. Changes made in one exec session are there in the next one, for as long
 * as the pod (by uid) lives.
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
		const mounts = new Set(['/data', ...pod.mounts]);
		for (const m of mounts) mk(m);
		this.put(
			'/data/README',
			`This is the data volume of ${pod.name}${pod.claimName ? ` (claim ${pod.claimName})` : ''}.\nFiles here survive a stop and a start of the desktop; a release destroys them.\n`,
			now,
		);
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
