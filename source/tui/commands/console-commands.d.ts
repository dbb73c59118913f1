/**
 * The module the build and the tests make of every command record file of this folder
 * (scripts/command-records.mjs): each file's exports, in file name order.
 */
declare module 'virtual:console-commands' {
	const modules: ReadonlyArray<Readonly<Record<string, unknown>>>;
	export default modules;
}
