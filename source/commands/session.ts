/**
 * The cluster connection and engine context of a command, loaded lazily: client-node is only
 * imported once a command really talks to a cluster, so `ctpool --help` stays fast.
 */

import {
	actingIdentity,
	actorProblem,
	type EngineContext,
	type EngineContextOptions,
} from '../engine/context.js';
import type { Engine } from '../engine/engine.js';
import type { Kube, KubeOptions } from '../kube/config.js';
import type { CommandScope } from '../pool/command-hint.js';
import { PoolError } from '../pool/errors.js';
import { DEFAULT_NAMESPACE, defaultNamespace, isDnsLabel, NAMESPACE_ENV } from '../pool/names.js';
import { sanitize } from '../text/sanitize.js';
import type { CheckedCommand } from './access-check.js';
import { type CommandIo, println } from './io.js';

/** A command's connection: the cluster, its one engine, and that engine's context. */
export interface Session {
	kube: Kube;
	ctx: EngineContext;
	engine: Engine;
}

/** The global flags that pick the cluster and the actor. */
export interface ConnectionFlags {
	namespace?: string | boolean | undefined;
	context?: string | boolean | undefined;
	kubeconfig?: string | boolean | undefined;
	identity?: string | boolean | undefined;
}

/**
 * Who is acting: --identity, else $CTPOOL_IDENTITY, else `<os user>@<host>` (as the
 * console). A given identity is checked like a claim identity, and the reconciler's is
 * refused: PoolError('usage'), before any cluster call.
 */
export function actorOf(flags: ConnectionFlags, env: CommandIo['env']): string {
	const given = typeof flags.identity === 'string' ? flags.identity : undefined;
	const problem = actorProblem(given, env);
	if (problem) throw new PoolError('usage', sanitize(problem));
	return actingIdentity(given, env);
}

/**
 * The kube options of the global flags. The namespace is Corral's rule: -n, else (in a pod)
 * the service account's, else $CORRAL_NAMESPACE (from env), else corral-vms; an invalid one is a PoolError('usage').
 */
export function kubeOptions(
	flags: ConnectionFlags,
	env: CommandIo['env'] = process.env,
): KubeOptions {
	const opts: KubeOptions = {};
	if (typeof flags.kubeconfig === 'string') opts.kubeconfig = flags.kubeconfig;
	if (typeof flags.context === 'string') opts.context = flags.context;
	const fromEnv = env[NAMESPACE_ENV];
	if (typeof flags.namespace === 'string') {
		if (!isDnsLabel(flags.namespace))
			throw new PoolError(
				'usage',
				`-n ${JSON.stringify(sanitize(flags.namespace).slice(0, 70))} is not a valid namespace; use a DNS-1123 label of at most 63 characters, such as ${DEFAULT_NAMESPACE}`,
			);
		opts.namespace = flags.namespace;
	} else if (fromEnv !== undefined && fromEnv !== '') {
		if (!isDnsLabel(fromEnv))
			throw new PoolError(
				'usage',
				`${NAMESPACE_ENV}=${JSON.stringify(sanitize(fromEnv).slice(0, 70))} is not a valid namespace; set it to a DNS-1123 label of at most 63 characters, such as ${DEFAULT_NAMESPACE}, or unset it`,
			);
		opts.namespace = fromEnv;
		opts.namespaceIsFallback = true;
	} else {
		opts.namespace = defaultNamespace(env);
		opts.namespaceIsFallback = true;
	}
	return opts;
}

/**
 * What a command suggested in a message needs to run as printed: the namespace a bare ctpool
 * picks here (-n is written for any other) and the --context given.
 */
export function commandScopeOf(flags: ConnectionFlags, env: CommandIo['env']): CommandScope {
	const scope: CommandScope = {};
	try {
		const fallback = kubeOptions({ ...flags, namespace: undefined }, env).namespace;
		if (fallback !== undefined) scope.defaultNamespace = fallback;
	} catch {
		// an unusable $CORRAL_NAMESPACE: -n is always written
	}
	if (typeof flags.context === 'string') scope.context = flags.context;
	return scope;
}

/** Loads the cluster connection and makes its engine (PoolError('usage') on a bad kubeconfig). */
export async function connect(
	flags: ConnectionFlags,
	io: CommandIo,
	opts: {
		withSignal?: boolean;
		/** Refuse up front when the identity lacks a right this command surely needs. */
		check?: CheckedCommand;
	} = {},
): Promise<Session> {
	const actor = actorOf(flags, io.env);
	const [{ loadKube }, { createEngine }, { EVENTS_DENIED_ACTION }] = await Promise.all([
		import('../kube/config.js'),
		import('../engine/engine.js'),
		import('../engine/kube-event.js'),
	]);
	const kube = await loadKube({ ...kubeOptions(flags, io.env), ...io.connection });
	const ctxOpts: EngineContextOptions = {
		actor,
		commandScope: commandScopeOf(flags, io.env),
		// The engine events a command prints: Event writes denied (said once, never fatal), and
		// an error that did not fail its operation (a status not recorded, a claim's display
		// copy not written), which nothing else reports.
		emit: (e) => {
			if (e.action === EVENTS_DENIED_ACTION || e.partial)
				println(io.stderr, `ctpool: ${sanitize(e.message)}`);
		},
		...(io.engine ?? {}),
	};
	if (opts.withSignal && io.signal) ctxOpts.signal = io.signal;
	const engine = createEngine(kube, ctxOpts);
	if (opts.check) {
		const { refuseUnlessAllowed } = await import('./access-check.js');
		await refuseUnlessAllowed(kube, engine.ctx.namespace, opts.check);
	}
	return { kube, ctx: engine.ctx, engine };
}
