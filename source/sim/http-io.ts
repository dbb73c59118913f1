/** Reading request bodies and writing responses of the simulated API server. */

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
	badRequest,
	internalError,
	isSimApiError,
	SimError,
	unsupportedMediaType,
} from './errors.js';
import { DECODABLE_KINDS, decodeProtobufBody, PROTOBUF, unwrapEnvelope } from './protobuf.js';
import type { SimApiError } from './store-api.js';

/** The largest request body the server reads. */
const MAX_BODY = 8 * 1024 * 1024;

/**
 * Go's net/http buffers this much of a response before it sends the headers: a handler that
 * writes no more gets a Content-Length, a longer answer goes out chunked.
 */
export const CHUNKING_AFTER_BYTES = 2048;

/**
 * Writes a whole response (or just ends it when headers went out) as kube-apiserver does: with
 * a Content-Length up to 2 KiB, with `Transfer-Encoding: chunked` past that.
 */
export function send(
	res: ServerResponse,
	code: number,
	body: string,
	contentType = 'application/json',
): void {
	if (res.headersSent) {
		res.end();
		return;
	}
	const length = Buffer.byteLength(body);
	res.writeHead(code, {
		'Content-Type': contentType,
		...(length <= CHUNKING_AFTER_BYTES ? { 'Content-Length': length } : {}),
		'Cache-Control': 'no-cache, private',
	});
	res.end(body);
}

/** Writes an object as a JSON response. */
export function sendObj(res: ServerResponse, code: number, obj: unknown): void {
	send(res, code, JSON.stringify(obj));
}

/** Writes an API error as its Status body. */
export function sendError(res: ServerResponse, err: SimApiError): void {
	send(res, err.code, JSON.stringify(err.status));
}

/** Writes any thrown value: an API error as is, anything else as a 500. */
export function fail(res: ServerResponse, err: unknown): void {
	if (isSimApiError(err)) sendError(res, err);
	else sendError(res, internalError(err instanceof Error ? err.message : String(err)));
}

/** The request body as bytes (413 past 8 MiB). */
export function readRaw(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (c: Buffer) => {
			size += c.length;
			if (size > MAX_BODY) {
				reject(new SimError(413, 'RequestEntityTooLarge', 'the request body is too large', {}));
				req.destroy();
				return;
			}
			chunks.push(c);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** The request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
	return readRaw(req).then((b) => b.toString('utf8'));
}

/** The media type of the request body, without parameters. */
export function contentTypeOfRequest(req: IncomingMessage): string {
	return (req.headers['content-type'] ?? '').split(';')[0]!.trim();
}

/**
 * The request body as text and parsed as JSON (value undefined when empty; 400 when
 * malformed). A protobuf body is decoded into the JSON object it stands for (no text; 415 for
 * a kind without a schema).
 */
export async function readJsonText(
	req: IncomingMessage,
): Promise<{ text: string | undefined; value: unknown }> {
	const type = contentTypeOfRequest(req);
	if (type === PROTOBUF) {
		const raw = await readRaw(req);
		if (raw.length === 0) return { text: undefined, value: undefined };
		let kind = '';
		try {
			kind = unwrapEnvelope(raw).kind;
		} catch (e) {
			throw badRequest(`protobuf: ${(e as Error).message}`);
		}
		if (!DECODABLE_KINDS.has(kind)) throw unsupportedMediaType(type, 'application/json');
		try {
			return { text: undefined, value: decodeProtobufBody(raw) };
		} catch (e) {
			throw badRequest(`protobuf: ${(e as Error).message}`);
		}
	}
	const text = await readBody(req);
	if (text.trim() === '') return { text, value: undefined };
	try {
		return { text, value: JSON.parse(text) as unknown };
	} catch (e) {
		throw badRequest(`json: ${(e as Error).message}`);
	}
}

/** The request body as its JSON value (undefined when empty; protobuf decoded; 400 when malformed). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
	return (await readJsonText(req)).value;
}

/** Adds `Warning: 299 - "text"` headers to a response, quoted as kube-apiserver quotes them. */
export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
	if (warnings.length === 0) return;
	const quoted = warnings.map((w) => `299 - "${w.replace(/["\\]/g, (c) => `\\${c}`)}"`);
	const prev = res.getHeader('Warning');
	const before = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)];
	res.setHeader('Warning', [...before, ...quoted]);
}
