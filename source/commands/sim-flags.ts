/** The flags of `ctpool sim`, apart from the command so that completion need not load the simulator. */

/** The flags `ctpool sim` takes (checked by scanFlags before meow parses them). */
export const SIM_FLAGS = {
	port: { type: 'string' },
	kubeconfig: { type: 'string' },
	nodes: { type: 'string' },
	nodeCpu: { type: 'string' },
	nodeMemory: { type: 'string' },
	demo: { type: 'boolean' },
	fault: { type: 'string' },
	kubeconfigFor: { type: 'string', isMultiple: true },
	compaction: { type: 'string' },
	bookmarkInterval: { type: 'string' },
	help: { type: 'boolean', shortFlag: 'h' },
} as const;
