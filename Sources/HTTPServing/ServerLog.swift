import Logging
import Synchronization

/// Hummingbird's and swift-service-lifecycle's own log lines, as the server's notes: warnings
/// and errors only (the caller already says where it serves), at most `linesPerMinute` a
/// minute, the rest counted and reported with the next line let through.
///
/// Without the bound a client is a log amplifier: 50 connections that pipeline 200 requests
/// each and hang up wrote 7,124 "Error handling upgrade result" lines
/// (`scripts/hostile-http.py`), one per request in flight — a disk filled by any peer.
struct ServerLog: LogHandler {
    /// The lines let through per minute.
    static let linesPerMinute = 10

    /// The shared minute window of every copy of the handler (Logger copies its handler).
    final class Window: Sendable {
        struct State {
            var start: ContinuousClock.Instant
            var written = 0
            var suppressed = 0
        }
        let state: Mutex<State>
        let clock = ContinuousClock()
        init() { state = Mutex(State(start: clock.now)) }

        /// Whether a line may be written now, with how many were held back before it.
        func admit() -> (admitted: Bool, heldBack: Int) {
            let now = clock.now
            return state.withLock { s in
                if now - s.start >= .seconds(60) {
                    s.start = now
                    s.written = 0
                }
                guard s.written < ServerLog.linesPerMinute else {
                    s.suppressed += 1
                    return (false, 0)
                }
                s.written += 1
                defer { s.suppressed = 0 }
                return (true, s.suppressed)
            }
        }
    }

    let note: @Sendable (String) -> Void
    let window = Window()
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .warning

    init(note: @escaping @Sendable (String) -> Void) { self.note = note }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let (admitted, heldBack) = window.admit()
        guard admitted else { return }
        var fields = metadata
        if let more = event.metadata { fields.merge(more) { $1 } }
        let details = fields.isEmpty ? "" : " (" + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        let earlier = heldBack == 0 ? "" : " [\(heldBack) earlier server log lines not shown: at most \(Self.linesPerMinute) a minute]"
        note("\(event.level): \(event.message)\(details)\(earlier)")
    }
}
