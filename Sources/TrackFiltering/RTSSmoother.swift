public import GeoCore

extension KalmanSmoother {
    /// One accepted fix of the forward pass, as the backward pass needs it.
    private struct Record {
        var frame: LocalFrame
        var filtered: State4
        var filteredCovariance: Block4
        var predicted: State4
        var predictedCovariance: Block4
        var dt: Double
        var startsSegment: Bool
        var fix: Location
    }

    /// The Rauch–Tung–Striebel smoothed track: every fix the forward filter used, re-estimated
    /// from all fixes before and after it (Rauch, Tung & Striebel, "Maximum likelihood estimates
    /// of linear dynamic systems", AIAA J. 3(8), 1965; Särkkä, *Bayesian Filtering and
    /// Smoothing*, 2013, Thm 8.2). Same model and gates as `update(with:)`; segments split where
    /// the forward filter restarted. Gated outliers and out-of-order fixes are left out and
    /// counted in `report`. Starts from this filter's parameters, not its running state.
    /// - Complexity: O(n) time and memory.
    public func smoothed(_ track: some Sequence<Location>, report: inout FilterReport) -> [Location] {
        var forward = KalmanSmoother(parameters: parameters)
        var records: [Record] = []
        for fix in track {
            var step = Step.none
            let result = forward.update(with: fix, recording: &step)
            switch result {
            case .rejected: report.record(.kalmanOutlier); continue
            case .outOfOrder: report.record(.outOfOrder); continue
            case .started, .updated: report.record(nil)
            }
            if forward.replacedUnconfirmedStart, records.last?.startsSegment == true {
                // The previous fix started a segment the next one contradicted: it was the outlier.
                records.removeLast()
                report.reclassify(acceptedAs: .kalmanOutlier)
            } else if forward.segmentOutvoted, let first = records.lastIndex(where: \.startsSegment) {
                // More agreeing outliers than the segment had fixes: the segment was the outlier.
                for _ in first..<records.count { report.reclassify(acceptedAs: .kalmanOutlier) }
                records.removeSubrange(first...)
            }
            let (fx, fp) = (forward.x, forward.p)
            switch step {
            case .none:
                continue
            case .start(let frame):
                records.append(Record(frame: frame, filtered: fx, filteredCovariance: fp, predicted: fx,
                                      predictedCovariance: fp, dt: 0, startsSegment: true, fix: fix))
            case .update(let frame, let predicted, let predictedCovariance, let dt):
                records.append(Record(frame: frame, filtered: fx, filteredCovariance: fp, predicted: predicted,
                                      predictedCovariance: predictedCovariance, dt: dt, startsSegment: false, fix: fix))
            }
        }
        var k = records.count - 1
        var smoothed = records.last.map { ($0.filtered, $0.filteredCovariance) }
        var reversed: [Location] = []
        reversed.reserveCapacity(records.count)
        while k >= 0, let (xs, ps) = smoothed {
            let r = records[k]
            reversed.append(KalmanSmoother.location(frame: r.frame, xs, ps, template: r.fix))
            if k == 0 { break }
            let previous = records[k - 1]
            if r.startsSegment {
                smoothed = (previous.filtered, previous.filteredCovariance)
            } else {
                // C = P_k|k Fᵀ (P_k+1|k)⁻¹; x_k|n = x_k|k + C (x_k+1|n − x_k+1|k).
                let c = previous.filteredCovariance * Block4.transition(r.dt).transposed * r.predictedCovariance.inverse
                let x = previous.filtered + c * (xs - r.predicted)
                let p = previous.filteredCovariance + c * (ps - r.predictedCovariance) * c.transposed
                smoothed = (x, p.symmetrized)
            }
            k -= 1
        }
        return reversed.reversed()
    }

    /// The RTS-smoothed track, without a report.
    public func smoothed(_ track: some Sequence<Location>) -> [Location] {
        var report = FilterReport()
        return smoothed(track, report: &report)
    }
}
