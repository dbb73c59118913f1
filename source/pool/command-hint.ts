/**
 * Commands that messages and hints suggest, written so that they run as printed: with
 * `-n <namespace>` unless the namespace is the one a bare `ctpool` picks, and with
 * `--context <name>` when one was given. Pure.
 */

/** What a suggested command must carry besides its words. */
export interface CommandScope {
	/** The namespace `ctpool` picks without -n; absent: -n is always written. */
	defaultNamespace?: string;
	/** The --context given, if any. */
	context?: string;
}

/** `ctpool <words> [-n <namespace>] [--context <name>]`. */
export function ctpoolCommand(words: string, namespace: string, scope: CommandScope = {}): string {
	const ns = namespace !== scope.defaultNamespace ? ` -n ${namespace}` : '';
	const context = scope.context ? ` --context ${scope.context}` : '';
	return `ctpool ${words}${ns}${context}`;
}

/**
 * `kubectl <words> -n <namespace> [--context <name>]`: always with -n, because kubectl's
 * default namespace is the kubeconfig context's, not Corral's.
 */
export function kubectlCommand(words: string, namespace: string, scope: CommandScope = {}): string {
	const context = scope.context ? ` --context ${scope.context}` : '';
	return `kubectl ${words} -n ${namespace}${context}`;
}
