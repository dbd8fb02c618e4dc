/**
 * UpdateFeatures (57, KIP-584): `kafka-features.sh upgrade|downgrade`, answered by the active
 * controller's rules (a KRaft broker forwards it there; here every broker's listener calls the
 * controller on the engine).
 *
 *   Request  => timeout_ms [feature max_version_level allow_downgrade(v0) upgrade_type(v1+)]
 *               validate_only(v1+)
 *   Response => throttle error_code error_message [feature error_code error_message]
 *
 * All or nothing, as Kafka's QuorumController.updateFeatures since 3.x: every update is checked
 * first; if one fails, nothing is finalized and the answer carries only the top-level error
 * (INVALID_UPDATE_VERSION, "The update failed for all features since the following feature had
 * an error: …") and no per-feature results; otherwise every feature is answered NONE and, unless
 * validate_only, the levels are finalized together. Upgrade types (v1+): 1 upgrade, 2 safe
 * downgrade, 3 unsafe downgrade, anything else refused; v0's allow_downgrade means a safe
 * downgrade. A level below 0 is refused before the feature is looked at.
 */
import { KafkaError } from '../../api/errors.js';
import { ALL_FEATURES_FAILED, type FeatureUpdate } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type UpdateFeaturesRequest } from '../generated/index.js';
import { resultError, run } from './admin/gateway.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import type { BrokerGateway } from './broker-gateway.js';

const UPGRADE_TYPES: Record<number, FeatureUpdate['upgradeType']> = { 1: 'upgrade', 2: 'safe-downgrade', 3: 'unsafe-downgrade' };

const failedAll = (why: string) => `${ALL_FEATURES_FAILED}${why}`;

/** The engine's updates for the request, or the first refusal the controller gives before looking further. */
function updatesOf(request: UpdateFeaturesRequest, version: number): FeatureUpdate[] | KafkaError {
  const updates: FeatureUpdate[] = [];
  for (const u of request.featureUpdates) {
    const upgradeType = version === 0 ? (u.allowDowngrade ? 'safe-downgrade' : 'upgrade') : UPGRADE_TYPES[u.upgradeType];
    const invalid = (why: string) => new KafkaError('INVALID_UPDATE_VERSION', `Invalid update version ${u.maxVersionLevel} for feature ${u.feature}. ${why}`);
    if (!upgradeType) return invalid('The controller does not support the given upgrade type.');
    if (u.maxVersionLevel < 0) return invalid('A feature version cannot be less than 0.');
    updates.push({ feature: u.feature, maxVersionLevel: u.maxVersionLevel, upgradeType });
  }
  return updates;
}

export function updateFeaturesHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.UpdateFeatures> {
  return {
    apiKey: ApiKey.UpdateFeatures,
    advertised: ADVERTISED_VERSIONS[ApiKey.UpdateFeatures]!,
    async handle(request, ctx) {
      const refused = (e: unknown) => {
        const { errorCode: code, errorMessage } = resultError(e);
        return { throttleTimeMs: 0, errorCode: code, errorMessage: code === errorCode('INVALID_UPDATE_VERSION') ? failedAll(errorMessage) : errorMessage, results: [] };
      };
      const updates = updatesOf(request, ctx.apiVersion);
      if (updates instanceof KafkaError) return refused(updates);
      try {
        await run(gateway, () => {
          // The refused feature itself (the others only say that the whole update failed).
          const refusals = gateway.engine.updateFeatures(updates, true).filter((r) => r.errorCode !== 'NONE');
          const checked = refusals.find((r) => !r.message?.startsWith(ALL_FEATURES_FAILED)) ?? refusals[0];
          if (checked) throw new KafkaError(checked.errorCode, checked.message ?? checked.errorCode);
          if (!request.validateOnly) gateway.engine.updateFeatures(updates, false);
        });
      } catch (e) {
        return refused(e);
      }
      return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, results: request.featureUpdates.map((u) => ({ feature: u.feature, errorCode: 0, errorMessage: null })) };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: null, results: [] }),
  };
}
