/**
 * Running the Kubernetes Python client (Debian's python3-kubernetes, under /usr/bin/python3)
 * in tests, as a second client independent of ours: the scenarios of python_client.py, each
 * answering one JSON document.
 */

import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWithClient } from './kubectl.js';

/** The system Python that has the Debian package (not a pyenv one on the PATH). */
export const SYSTEM_PYTHON = '/usr/bin/python3';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'python_client.py');

let probed: boolean | undefined;

/** Whether /usr/bin/python3 can import the kubernetes module. */
export function pythonClientAvailable(): boolean {
	probed ??=
		spawnSync(SYSTEM_PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore', timeout: 30_000 })
			.status === 0;
	return probed;
}

/** A describe block for Python client tests: skipped without it, failing under CI=true. */
export function describePython(name: string, fn: () => void): void {
	describeWithClient(
		name,
		pythonClientAvailable(),
		`${SYSTEM_PYTHON} cannot import kubernetes (install python3-kubernetes)`,
		fn,
	);
}

/** Runs a scenario of python_client.py against a kubeconfig; resolves with its JSON answer. */
export function runPythonScenario<T>(
	kubeconfig: string,
	namespace: string,
	scenario: string,
	...args: string[]
): Promise<T> {
	return new Promise((resolve, reject) => {
		const child = spawn(SYSTEM_PYTHON, [SCRIPT, kubeconfig, namespace, scenario, ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, KUBECONFIG: kubeconfig },
		});
		let out = '';
		let err = '';
		child.stdout.setEncoding('utf8').on('data', (d: string) => {
			out += d;
		});
		child.stderr.setEncoding('utf8').on('data', (d: string) => {
			err += d;
		});
		const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
		child.on('error', reject);
		child.on('close', (code) => {
			clearTimeout(timer);
			if (code !== 0) {
				reject(new Error(`python scenario ${scenario} exited ${code}: ${err.slice(-2000)}`));
				return;
			}
			try {
				resolve(JSON.parse(out) as T);
			} catch {
				reject(new Error(`python scenario ${scenario} printed no JSON: ${out}${err}`));
			}
		});
	});
}
