/**
 * Work made for listed objects ahead of their batch (as each list page arrives, while the
 * server makes the next), kept by kind, then object, until the batch takes it: taken once, so
 * nothing is kept past its batch, and an object read again is read anew. Weakly held: a list
 * that fails part way leaves its entries to go with its objects.
 */
export class MadeAhead<V> {
	private readonly byKind = new Map<string, WeakMap<object, V>>();

	/** Keeps what was made for an object of a kind. */
	put(kind: string, o: object, made: V): void {
		let kept = this.byKind.get(kind);
		if (!kept) {
			kept = new WeakMap();
			this.byKind.set(kind, kept);
		}
		kept.set(o, made);
	}

	/** What was made for the object as that kind (then forgotten), or undefined. */
	take(kind: string, o: object): V | undefined {
		const kept = this.byKind.get(kind);
		const made = kept?.get(o);
		if (made !== undefined) kept?.delete(o);
		return made;
	}
}
