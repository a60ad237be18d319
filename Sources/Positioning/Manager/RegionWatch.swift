public import Monitoring

/// `geo monitor`'s run: regions decided from a position source by a `RegionMonitor`, each
/// event written as its JSON line.
public enum RegionWatch {
    /// Makes `monitor` watch exactly `conditions` (each with `dwell`; a rejoined store keeps
    /// their states), then decides every fix `source` delivers until it ends, writing each event
    /// to `line` as `MonitorEvent.jsonLine(previous:)` tells it against the region's last decided
    /// state (`DecidedStates`), and calling `flush` after each fix.
    /// - Returns: the fixes the monitor ignored: out of order, or without a usable accuracy.
    /// - Throws: `MonitoringError` when the store cannot be written; the source's error.
    public static func run(_ monitor: RegionMonitor, conditions: [(identifier: String, condition: MonitorCondition)], dwell: Duration?,
                           source: any PositionSource, line: (String) -> Void, flush: () -> Void) async throws -> Int {
        var decided = DecidedStates(try await monitor.monitorExactly(conditions, dwell: dwell))
        for try await event in source.events() {
            guard case .location(let fix) = event else { continue }
            for e in try await monitor.process(fix) {
                if let text = e.jsonLine(previous: decided.record(e)) { line(text) }
            }
            flush()
        }
        return await monitor.ignoredFixes
    }
}
