package import Foundation
import GeoCore
import Monitoring
import TrackFiltering

/// `geo track`'s output (CONTRACT.md, `geo track`): a started manager's events as JSON lines
/// (``EventJSON``), one per update, pause, loss, visit and error, and the fixes the filter
/// drops as notes for people (``DropDiagnostics``).
package struct EventLines {
    /// Update objects after which it ends (moving updates and the stationary one that
    /// announces a pause; lost and error lines do not count); nil: until the source ends.
    package var count: Int?
    /// Whether updates carry the `"matched"` member (live matching is on).
    package var withMatches: Bool
    /// Takes each JSON line.
    package var line: (String) -> Void
    /// Hands the lines so far on (after each event: a live stream).
    package var flush: () -> Void
    /// Takes each note about dropped fixes or a failure given up on.
    package var note: (String) -> Void
    /// The wall clock, against which a stale fix that opens the stream is aged.
    package var now: () -> Date = { Date() }

    package init(count: Int?, withMatches: Bool, line: @escaping (String) -> Void, flush: @escaping () -> Void,
                 note: @escaping (String) -> Void) {
        self.count = count
        self.withMatches = withMatches
        self.line = line
        self.flush = flush
        self.note = note
    }

    /// Writes `events` of `manager` until `.stopped`, `count` updates, a refused device
    /// (`.denied`: the manager would wait for access) or a failure after which the manager no
    /// longer runs; then stops the manager and ends the open run of drops.
    ///
    /// An update carries the filtered position of the `.mapMatched` update before it when
    /// there is one, else its own; `"matched"` is that update's match or null.
    /// - Returns: whether it ended on a failure.
    package func write(_ events: PositioningEvents, of manager: PositioningManager) async -> Bool {
        var updates = 0, failed = false
        var last: Location?
        var drops = DropDiagnostics()
        var matched: MapMatchedUpdate?
        loop: for await event in events {
            if case .rejected(let fix, let reason) = event {
                drops.dropped(fix, reason, at: now()).map(note)
                continue
            }
            drops.endRun().map(note)
            switch event {
            case .updated(let location), .paused(let location):
                last = location
                drops.saw(location)
                let pause = if case .paused = event { true } else { false }
                line(EventJSON.update(matched?.filteredPosition ?? location, stationary: pause,
                                      matched: withMatches ? .some(matched) : nil))
                matched = nil
                updates += 1
                if let count, updates >= count { break loop }
            case .lost:
                line(EventJSON.lost(lastFix: last?.timestamp))
            case .failed(let error):
                line(EventJSON.error(error))
                if error.code == .denied {
                    failed = true
                    break loop
                }
                failed = !(await manager.isRunning)
                // Given up for good: said as a note too (with no retries no retry note came first).
                if failed { note("giving up: \(error.message)") }
            case .stopped:
                break loop
            case .mapMatched(let update):
                matched = update
                continue
            case .visit(let visit):
                line(EventJSON.visit(visit.visit, event: true))
            case .resumed, .authorizationChanged, .rejected, .heading, .deferredUpdatesFinished, .region, .beacons:
                break
            }
            flush()
        }
        flush()
        await manager.stop()
        drops.endRun().map(note)
        return failed
    }
}
