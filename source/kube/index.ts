/** Cluster access: kubeconfig, API clients with deadlines, readable errors, resilient watches. */
export * from './access-review.js';
export * from './config.js';
export * from './connection-state.js';
export * from './errors.js';
export * from './objects.js';
export * from './pool-watch.js';
