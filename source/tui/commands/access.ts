/**
 * Which mutating keys the identity may use, checked with SelfSubjectAccessReview. A key the
 * identity lacks a right for is shown disabled with the missing permission.
 */

import { type AccessNeed, mayI } from '../../kube/access-review.js';
import type { Kube } from '../../kube/config.js';
import { forbiddenText } from '../../kube/errors.js';
import { COMMANDS, type Command } from './registry.js';

/** One right an operation needs. */
export type { AccessNeed };

/**
 * The rights each command needs (its record's `needs`), from what the engine and kubectl
 * call: exactly those whose denial makes the operation fail
 * (test/safety/least-privilege.test.ts). A write whose denial is only reported (a claim's
 * display copy of the holder on the PVC, the status a reconcile records) disables nothing.
 */
export const COMMAND_NEEDS: Partial<Record<Command, readonly AccessNeed[]>> = Object.fromEntries(
	COMMANDS.flatMap((c) => (c.needs ? [[c.id, c.needs]] : [])),
);

function needKey(n: AccessNeed): string {
	return `${n.verb} ${n.resource}${n.subresource ? `/${n.subresource}` : ''}${n.group ? `.${n.group}` : ''}`;
}

/**
 * The commands the identity may not use, each with the first missing permission. A check
 * that cannot be made (the review API unreachable or refused) denies nothing: the
 * operation itself then reports what the cluster says.
 */
export async function deniedCommands(
	kube: Kube,
	namespace: string,
): Promise<Partial<Record<Command, string>>> {
	const needs = new Map<string, AccessNeed>();
	for (const list of Object.values(COMMAND_NEEDS))
		for (const n of list ?? []) needs.set(needKey(n), n);
	const answers = new Map<string, boolean | null>();
	await Promise.all(
		[...needs].map(async ([key, need]) => {
			answers.set(key, await mayI(kube, namespace, need));
		}),
	);
	const denied: Partial<Record<Command, string>> = {};
	for (const [command, list] of Object.entries(COMMAND_NEEDS) as Array<[Command, AccessNeed[]]>) {
		const missing = list.find((n) => answers.get(needKey(n)) === false);
		if (missing)
			denied[command] = forbiddenText({
				verb: missing.verb,
				resource: `${missing.resource}${missing.subresource ? `/${missing.subresource}` : ''}`,
				namespace,
			});
	}
	return denied;
}
