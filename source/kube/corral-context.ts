/**
 * `--context` as Corral reads it. In Corral (pkg/config) a context is an entry of its config
 * file, `$HOME/.config/corral/config.yaml` (Go's os.UserHomeDir: $HOME; XDG_CONFIG_HOME is not
 * read): `contexts: [{name, backend, context, enabled}]`, where a kubevirt context's `context`
 * is a kubeconfig context. Without `--context`, Corral's kubeconfig context is
 * `$CORRAL_KUBE_CONTEXT`, else the legacy `kubevirt.context` of the file, else kubectl's current
 * context. ctpool resolves the same way; a name that is no Corral kubevirt context may be a
 * kubeconfig context (ctpool's extension, kubectl's habit); anything else is an error that
 * lists both kinds.
 */

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { PoolError } from '../pool/errors.js';
import { sanitize } from '../text/sanitize.js';

/** One Corral context, as Corral's config.Contexts lists it. */
export interface CorralContext {
	name: string;
	backend: string;
	/** For kubevirt: the kubeconfig context ('' = kubectl's current context). */
	context: string;
}

/** What ctpool reads of Corral's config file. */
export interface CorralConfig {
	/** The file it came from. */
	path: string;
	contexts: CorralContext[];
	/** The legacy `kubevirt.context`. */
	kubevirtContext: string;
	defaultBackend: string;
	incusRemote: string;
	libvirtUri: string;
}

/** The environment variable Corral reads the kubeconfig context from (one-shot, wins over the file). */
export const CORRAL_KUBE_CONTEXT_ENV = 'CORRAL_KUBE_CONTEXT';

/** The biggest config file read (bytes) and the most contexts taken from it. */
const MAX_CONFIG_BYTES = 1 << 20;
const MAX_CONTEXTS = 1_000;

/** Corral's config file path as Corral computes it, or null without $HOME. */
export function corralConfigPath(env: Record<string, string | undefined>): string | null {
	const home = env.HOME;
	return home ? join(home, '.config', 'corral', 'config.yaml') : null;
}

function str(v: unknown, max = 253): string {
	return typeof v === 'string' ? v.slice(0, max) : '';
}

function field(o: unknown, key: string): unknown {
	return o && typeof o === 'object' && !Array.isArray(o)
		? (o as Record<string, unknown>)[key]
		: undefined;
}

/**
 * Reads Corral's config file: null when there is none, a `problem` when it cannot be read or
 * parsed (Corral then sees no contexts either). Bounded; never throws.
 */
export function readCorralConfig(env: Record<string, string | undefined>): {
	config: CorralConfig | null;
	problem: string | null;
} {
	const path = corralConfigPath(env);
	if (!path) return { config: null, problem: null };
	let text: string;
	try {
		if (statSync(path).size > MAX_CONFIG_BYTES)
			return { config: null, problem: `${path} is larger than ${MAX_CONFIG_BYTES} bytes` };
		text = readFileSync(path, 'utf8');
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' || code === 'ENOTDIR') return { config: null, problem: null };
		return { config: null, problem: `${path} cannot be read (${code ?? 'unreadable'})` };
	}
	let doc: unknown;
	try {
		doc = loadYaml(text);
	} catch (err) {
		const reason = (err as { reason?: string }).reason ?? 'syntax error';
		return { config: null, problem: `${path} is not valid YAML (${sanitize(reason)})` };
	}
	const listed = field(doc, 'contexts');
	const contexts: CorralContext[] = [];
	for (const c of Array.isArray(listed) ? listed.slice(0, MAX_CONTEXTS) : []) {
		// Corral leaves out disabled contexts and those without a name or backend.
		if (field(c, 'enabled') === false) continue;
		const name = str(field(c, 'name'));
		const backend = str(field(c, 'backend'));
		if (name && backend) contexts.push({ name, backend, context: str(field(c, 'context')) });
	}
	return {
		config: {
			path,
			contexts,
			kubevirtContext: str(field(field(doc, 'kubevirt'), 'context')),
			defaultBackend: str(field(field(doc, 'default'), 'backend')),
			incusRemote: str(field(field(doc, 'incus'), 'remote')),
			libvirtUri: str(field(field(doc, 'libvirt'), 'uri')),
		},
		problem: null,
	};
}

/**
 * Corral's context list, as its config.Contexts builds it: `local` (qemu), the file's enabled
 * contexts, then the legacy single-context settings (kubevirt always here, since ctpool only
 * asks with a kubeconfig at hand); one per backend and target, the first kept.
 */
export function corralContexts(
	cfg: CorralConfig | null,
	env: Record<string, string | undefined>,
): CorralContext[] {
	const out: CorralContext[] = [{ name: 'local', backend: 'qemu', context: '' }];
	const seen = new Set(['qemu\u0000']);
	const add = (c: CorralContext) => {
		const key = `${c.backend}\u0000${c.context}`;
		if (seen.has(key)) return;
		seen.add(key);
		out.push(c);
	};
	for (const c of cfg?.contexts ?? []) add(c);
	add({ name: 'kubevirt', backend: 'kubevirt', context: cfg?.kubevirtContext ?? '' });
	const backend = cfg?.defaultBackend ?? '';
	if (cfg?.incusRemote || backend === 'incus' || env.CORRAL_INCUS_REMOTE)
		add({
			name: 'incus',
			backend: 'incus',
			context: env.CORRAL_INCUS_REMOTE || cfg?.incusRemote || 'local',
		});
	if (cfg?.libvirtUri || backend === 'libvirt')
		add({
			name: 'libvirt',
			backend: 'libvirt',
			context: env.CORRAL_LIBVIRT_URI || cfg?.libvirtUri || 'qemu:///system',
		});
	return out;
}

/** The kubeconfig context to use and how it was chosen (for messages); name undefined = current. */
export interface ResolvedContext {
	name?: string;
	/** `Corral context "lab"`, `CORRAL_KUBE_CONTEXT`, ...; undefined when kubectl's rules chose. */
	via?: string;
}

function quoted(names: readonly string[]): string {
	return names.length > 0 ? names.map((n) => JSON.stringify(sanitize(n))).join(', ') : '(none)';
}

function missing(via: string, name: string, kube: readonly string[], fix: string): PoolError {
	return new PoolError(
		'usage',
		`${via} selects kubeconfig context ${JSON.stringify(sanitize(name))}, which is not in the kubeconfig (its contexts: ${quoted(kube)}); ${fix}`,
	);
}

/**
 * The kubeconfig context for `--context wanted` (or none given), by Corral's rules: a Corral
 * kubevirt context selects its kubeconfig context; else a kubeconfig context of that name;
 * else a usage error listing both kinds. Without --context: $CORRAL_KUBE_CONTEXT, else the
 * file's `kubevirt.context`, else kubectl's current context.
 */
export function resolveContext(
	wanted: string | undefined,
	kubeContexts: readonly string[],
	env: Record<string, string | undefined>,
): ResolvedContext {
	const { config, problem } = readCorralConfig(env);
	const file = config?.path ?? corralConfigPath(env) ?? 'Corral config file';
	const has = (n: string) => kubeContexts.includes(n);
	if (wanted === undefined || wanted === '') {
		const fromEnv = env[CORRAL_KUBE_CONTEXT_ENV];
		if (fromEnv) {
			if (!has(fromEnv))
				throw missing(
					CORRAL_KUBE_CONTEXT_ENV,
					fromEnv,
					kubeContexts,
					`set ${CORRAL_KUBE_CONTEXT_ENV} to one of them or unset it, or pass --context NAME`,
				);
			return { name: fromEnv, via: CORRAL_KUBE_CONTEXT_ENV };
		}
		const legacy = config?.kubevirtContext ?? '';
		if (legacy) {
			if (!has(legacy))
				throw missing(
					`kubevirt.context in ${file}`,
					legacy,
					kubeContexts,
					'fix it there (corral config), or pass --context NAME',
				);
			return { name: legacy, via: `kubevirt.context in ${file}` };
		}
		return {};
	}
	const all = corralContexts(config, env);
	const corral = all.find((c) => c.name === wanted);
	if (corral?.backend === 'kubevirt') {
		const via = `Corral context ${JSON.stringify(sanitize(wanted))} (${file})`;
		if (corral.context === '') return { via };
		if (!has(corral.context))
			throw missing(
				via,
				corral.context,
				kubeContexts,
				`fix its context in ${file}, or pass --kubeconfig FILE`,
			);
		return { name: corral.context, via };
	}
	if (has(wanted)) return { name: wanted };
	const kubevirt = all.filter((c) => c.backend === 'kubevirt').map((c) => c.name);
	const other = corral
		? ` (Corral's context ${JSON.stringify(sanitize(wanted))} is a ${sanitize(corral.backend)} context, and ctpool acts on Kubernetes)`
		: '';
	const broken = problem ? `; Corral's config was not read: ${problem}` : '';
	throw new PoolError(
		'usage',
		`--context ${JSON.stringify(sanitize(wanted).slice(0, 80))} is neither a Corral kubevirt context (${file}: ${quoted(kubevirt)}) nor a kubeconfig context (${quoted(kubeContexts)})${other}${broken}; pass --context with one of them`,
	);
}
