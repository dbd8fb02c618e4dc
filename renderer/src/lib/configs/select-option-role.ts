/**
 * Naive UI's select options carry no ARIA role. `renderOptionWithRole` (for NSelect's
 * `render-option`) gives each one role="option" and aria-selected, so assistive technology and
 * tests find options by their name.
 */
import type { SelectOption } from 'naive-ui';
import { cloneVNode, type VNode } from 'vue';

export function renderOptionWithRole({ node, option, selected }: { node: VNode; option: SelectOption; selected: boolean }): VNode {
  return option.type === 'group' ? node : cloneVNode(node, { role: 'option', 'aria-selected': selected });
}
