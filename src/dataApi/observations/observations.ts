/**
 * What is observed of a primary-network validator beside what the P-chain holds (Glacier's `uptimePerformance` and
 * `validatorHealth` of an active validator, which chainkit requires): its uptime as a node sees it, whether that node
 * reaches it, and on which chains that node benches it. Sources: a node beside avaext (nodeObservations.ts), the
 * dev network's own validators, or nothing observed.
 */

export interface ValidatorHealth {
  /** Percent of the observing node's polls in which the validator was connected. */
  reachabilityPercent: number;
  /** Percent of those polls in which the node had it benched on the P-, X- and C-chain. */
  benchedPChainRequestsPercent: number;
  benchedXChainRequestsPercent: number;
  benchedCChainRequestsPercent: number;
}

export interface ValidatorObservation {
  /** Percent of its validation period the validator was up, as the observer computes it. */
  uptimePerformance: number;
  validatorHealth: ValidatorHealth;
}

export interface ValidatorObservations {
  /** What is known of the node's validator, or the source's value when it knows nothing of it. */
  observe(nodeId: string): ValidatorObservation;
}

/**
 * Up all the time: never disconnected, never benched. This is what AvalancheGo itself assumes of a validator it has
 * not observed (snow/uptime/manager.go `CalculateUptime`: before tracking starts, "we assume that the node has been
 * online since their last update"), so it is the value without a source, and for a validator the node beside
 * avaext does not report. The dev network's validators are this by construction: the dev feed is all of them, and it
 * never misses a block.
 */
export const UP: ValidatorObservation = Object.freeze({
  uptimePerformance: 100,
  validatorHealth: Object.freeze({
    reachabilityPercent: 100,
    benchedPChainRequestsPercent: 0,
    benchedXChainRequestsPercent: 0,
    benchedCChainRequestsPercent: 0,
  }),
});

/** No source (and the dev network): every validator as AvalancheGo assumes an unobserved one, up. */
export const assumedUp: ValidatorObservations = {observe: () => UP};
