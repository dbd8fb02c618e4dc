/**
 * The names of the built-in profiles (resources/profiles/NAME.json), and the one a new cluster
 * starts from. A module of its own, without the profile code, so that the headless host's command
 * line can check `--profile NAME` before it loads anything heavy (it forks the engine first).
 */
export const BUILT_IN_PROFILE_NAMES = ['durability', 'balanced', 'throughput'] as const;

/** The built-in profile every new local cluster starts from unless told otherwise. */
export const NEW_CLUSTER_PROFILE = 'balanced';
