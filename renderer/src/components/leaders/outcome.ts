/** An election outcome as a tag: NONE (elected), ELECTION_NOT_NEEDED (already preferred), or why not. */
import { NTag, NTooltip } from 'naive-ui';
import { h, type VNode } from 'vue';
import type { ElectionResultView } from '../../../../app/api/contract.js';
import { errorHelp } from '../../api/error-help.js';

export function outcomeTag(r: ElectionResultView, preview = false): VNode {
  const type = r.errorCode === 'NONE' ? 'success' : r.errorCode === 'ELECTION_NOT_NEEDED' ? 'default' : 'warning';
  const tag = h(NTag, { size: 'small', round: true, bordered: false, type, 'data-error-code': r.errorCode }, { default: () => (r.errorCode === 'NONE' ? (preview ? 'NONE — would elect' : 'NONE — elected') : r.errorCode) });
  const tip = [r.message, r.errorCode !== 'NONE' ? errorHelp(r.errorCode) : undefined].filter(Boolean).join(' ');
  return tip ? h(NTooltip, null, { trigger: () => tag, default: () => tip }) : tag;
}
