/** Container image references, checked the way the distribution reference grammar reads them. */

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(
	`^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`,
);

/** True when ref is a syntactically valid image reference such as `ghcr.io/example/desktop:1`. */
export function isImageReference(ref: string): boolean {
	if (typeof ref !== 'string' || ref.length === 0 || ref.length > 512) return false;
	const name = ref.split('@')[0]!.replace(/:[\w][\w.-]{0,127}$/, '');
	if (name.length > 255) return false;
	return REFERENCE.test(ref);
}
