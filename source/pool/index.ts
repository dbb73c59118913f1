/** The pure pool model: plain data in, plain data out. */
export * from './audit.js';
export * from './ct-spec.js';
export * from './errors.js';
export * from './find.js';
export * from './image-ref.js';
export * from './lease.js';
export * from './member-state.js';
export * from './names.js';
export * from './node-room.js';
export * from './objects.js';
export * from './ownership.js';
export * from './permissions.js';
export * from './quantity.js';
export * from './replace-backoff.js';
export * from './source-hash.js';
export * from './spec.js';
export * from './status.js';
