/** The store and terminal, as the views reach them. */

import { useStdout } from 'ink';
import { createContext, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { ConsoleActions, ConsoleState, ConsoleStore } from '../store/store.js';

/** The store of the mounted app. */
export const StoreContext = createContext<ConsoleStore | null>(null);

/** The store itself (for actions). */
export function useConsoleStore(): ConsoleStore {
	const store = useContext(StoreContext);
	if (!store) throw new Error('the console store is missing');
	return store;
}

/** A slice of the state; re-renders when it changes (selectors must return stable values). */
export function useConsole<T>(selector: (s: ConsoleState & ConsoleActions) => T): T {
	return useStore(useConsoleStore(), selector);
}

/** The terminal size. */
export interface TerminalSize {
	columns: number;
	rows: number;
}

function readSize(stdout: NodeJS.WriteStream): TerminalSize {
	return { columns: stdout.columns || 80, rows: stdout.rows || 24 };
}

/** The terminal size, updated on resize. */
export function useTerminalSize(): TerminalSize {
	const { stdout } = useStdout();
	const [size, setSize] = useState(() => readSize(stdout));
	useEffect(() => {
		const onResize = () => setSize(readSize(stdout));
		stdout.on('resize', onResize);
		onResize();
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}
