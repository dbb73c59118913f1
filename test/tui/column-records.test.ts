/**
 * Issue 25, part 4: the tables' columns are records (header, width rules, cell, sort key),
 * and the values of a member row the columns need are computed once per row.
 */

import { describe, expect, it } from 'vitest';
import {
	columnValues,
	MEMBER_COLUMNS,
	memberColumns,
	rowValues,
} from '../../source/tui/model/member-columns.js';
import { memberRow } from '../../source/tui/model/member-row.js';
import { ObjectIndex } from '../../source/tui/model/object-index.js';
import {
	POOL_COLUMNS,
	poolCell,
	poolColumn,
	poolColumns,
	poolTableValues,
	UNKNOWN,
} from '../../source/tui/model/pool-columns.js';
import { derivePool } from '../../source/tui/model/pool-derivation.js';
import { tallyRows, tallyValues } from '../../source/tui/model/row-tally.js';
import { MEMBER_SORT_COLUMNS, POOL_SORT_COLUMNS } from '../../source/tui/model/sorting.js';
import { NOW, pod, pvc, reconcilerLease } from '../pool/fixtures.js';
import { poolSpec } from '../support/pool-spec.js';
import { configMap, member, upserts } from './fixtures.js';

const pool = { spec: null, sourceHash: null };

function corralRow() {
	const claimed = pvc('desk-1');
	claimed.metadata.labels = {
		...claimed.metadata.labels,
		'corral.dev/vdi-assigned-to': 'someone-long@example.com',
	};
	return memberRow({ name: 'desk-1', index: 1, pod: pod('desk-1'), pvc: claimed }, pool, NOW);
}

describe('the member column records', () => {
	it('compute the values of a row once per row object', () => {
		const row = corralRow();
		const first = rowValues(row);
		expect(rowValues(row)).toBe(first);
		expect(rowValues({ ...row })).not.toBe(first);
		expect(rowValues({ ...row })).toEqual(first);
	});

	it('fit the HOLDER column to the holder as shown, Corral claims included', () => {
		const row = corralRow();
		expect(row.holder).toBe('');
		const v = rowValues(row);
		expect(v.holderWidth).toBe('someone-long@example.com (Corral)'.length);
		// nothing to say in CLAIM: ctpool holds no claim on it
		expect(v.claim).toBe(false);
		const values = columnValues([row]);
		expect(values.holderWidth).toBe(v.holderWidth);
		expect(tallyValues(tallyRows([row]))).toEqual(values);
		const holder = memberColumns(values).find((c) => c.key === 'holder');
		expect(holder?.max).toBe(28);
		expect(memberColumns(values).some((c) => c.key === 'claim')).toBe(false);
	});

	it('show CLAIM while a reconciler is at work', () => {
		const row = memberRow(
			{
				name: 'desk-2',
				index: 2,
				pod: pod('desk-2'),
				pvc: pvc('desk-2'),
				lease: reconcilerLease('desk-2'),
			},
			pool,
			NOW,
		);
		expect(row.reconciling).toBe(true);
		expect(rowValues(row).claim).toBe(true);
		expect(memberColumns(columnValues([row])).map((c) => c.key)).toContain('claim');
	});

	it('leave out the columns with nothing to show, and each spec carries its record', () => {
		const keys = memberColumns(columnValues([])).map((c) => c.key);
		expect(keys).toEqual(['name', 'state', 'holder', 'node', 'age', 'message']);
		for (const c of memberColumns(columnValues([]))) expect(c.record.title).toBe(c.title);
	});

	it('give the sort its steps: every member column in display order', () => {
		expect(MEMBER_SORT_COLUMNS).toEqual(MEMBER_COLUMNS.map((c) => c.key));
		expect(new Set(MEMBER_SORT_COLUMNS).size).toBe(MEMBER_COLUMNS.length);
	});
});

describe('the pool column records', () => {
	const s = poolSpec({ size: 2 });
	const index = new ObjectIndex();
	index.apply(upserts([configMap('desk', s), ...member('desk', 1, s)]));
	const p = derivePool(index, 'desk', NOW);

	it('show NAMESPACE only across namespaces, sized for the widest', () => {
		expect(poolColumns(poolTableValues(['desk'], false)).map((c) => c.key)).not.toContain(
			'namespace',
		);
		const across = poolColumns(poolTableValues(['team-a/desk', 'a-much-longer-team/desk'], true));
		expect(across[0]?.key).toBe('namespace');
		expect(across[0]?.max).toBe('a-much-longer-team'.length);
	});

	it('show UNKNOWN for a figure whose list has not arrived, never a zero', () => {
		const context = { now: NOW, known: { spec: true, counts: false }, refused: 0, namespace: 'ns' };
		expect(poolCell(poolColumn('ready'), p, context).text).toBe(UNKNOWN);
		expect(poolCell(poolColumn('size'), p, context).text).toBe(`2/${UNKNOWN}`);
		expect(poolCell(poolColumn('refused'), p, context).text).toBe('0');
		const known = { ...context, known: { spec: true, counts: true } };
		expect(poolCell(poolColumn('ready'), p, known).text).toBe(String(p.counts.ready));
		expect(poolCell(poolColumn('namespace'), p, known).text).toBe('ns');
	});

	it('give the sort its steps: every pool column but NAMESPACE, in display order', () => {
		expect(POOL_SORT_COLUMNS).toEqual(
			POOL_COLUMNS.map((c) => c.key).filter((k) => k !== 'namespace'),
		);
	});
});
