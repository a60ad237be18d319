import Synchronization

/// The server's counters, written out in the Prometheus text exposition format (version 0.0.4)
/// by `/metrics`.
public final class TrackingMetrics: Sendable {
    struct Counters {
        var requests: [String: Int] = [:]
        var responses: [Int: Int] = [:]
        var acknowledgedFixes = 0
        var rejectedFixes = 0
        var duplicateFixes = 0
        var refusedUnknownDevices = 0
        var commits = 0
        var liveRefused = 0
        var liveEvicted = 0
        var brokenReplies = 0
        var stalledReplies = 0
        var remadeReplies = 0
        /// Store operations that failed, by `StoreFailureLog.Operation`.
        var storeFailures = [Int](repeating: 0, count: StoreFailureLog.Operation.allCases.count)
        /// Teltonika connections the server closed, by `TeltonikaClose`.
        var teltonikaClosed = [Int](repeating: 0, count: TeltonikaClose.allCases.count)
        var committedRows = 0
        var commitSeconds = 0.0
        var settles = 0
        var settledRows = 0
        var settleSeconds = 0.0
        /// Rows per group commit.
        var batchRows = Histogram(bounds: [1, 10, 100, 500, 1000])
        /// Seconds from an ingest request reaching its route to its reply handed to the connection.
        var ingestDuration = Histogram(bounds: Histogram.secondsBounds)
        /// Seconds a request's rows waited in the group committer's queue before their commit began.
        var queueWait = Histogram(bounds: Histogram.secondsBounds)
        /// Seconds per successful group commit.
        var commitDuration = Histogram(bounds: Histogram.secondsBounds)
        /// Seconds per upkeep transaction that did work.
        var settleDuration = Histogram(bounds: Histogram.secondsBounds)
        /// Geofence events stored, by kind.
        var fenceEvents: [String: Int] = [:]
        /// Seconds from a batch's ack to its fence events being stored.
        var fenceLatency = Histogram(bounds: Histogram.secondsBounds)
        var fenceBatchesDropped = 0
        /// Fixes of devices that opted in to live matching, answered by the online matcher, and
        /// committed batches not matched (`LiveMatching`'s queue full).
        var liveMatched = 0
        /// Seconds from a batch's ack to its live-matched positions published.
        var liveMatchLatency = Histogram(bounds: Histogram.secondsBounds)
        var liveMatchBatchesDropped = 0
        var webhookDelivered = 0
        var webhookFailedAttempts = 0
        var webhookDropped = 0
        /// Seconds per release of the heap's free pages (`FreedHeapMemory`), and the bytes the
        /// resident set fell by in them.
        var memoryRelease = Histogram(bounds: Histogram.secondsBounds)
        var memoryReleasedBytes = 0
    }

    /// A Prometheus histogram: counts of observations at most each bound (and above the last),
    /// their sum and count.
    struct Histogram {
        /// Bounds for durations, seconds: 1 ms to 1 s, fine where the ingest's goals lie (p99
        /// request → ack ≤ 25 ms, issue 35).
        static let secondsBounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0]
        let bounds: [Double]
        /// Per bound, then above the last.
        var counts: [Int]
        var sum = 0.0
        var count = 0

        init(bounds: [Double]) {
            self.bounds = bounds
            counts = [Int](repeating: 0, count: bounds.count + 1)
        }

        mutating func observe(_ value: Double) {
            counts[bounds.firstIndex { value <= $0 } ?? bounds.count] += 1
            sum += value
            count += 1
        }

        /// The samples of the exposition format: cumulative `_bucket`s, `_sum`, `_count`.
        var samples: [(String, String)] {
            var cumulative = 0, out: [(String, String)] = []
            for (bound, n) in zip(bounds.map { "\($0)" } + ["+Inf"], counts) {
                cumulative += n
                out.append(("_bucket{le=\"\(bound.hasSuffix(".0") ? String(bound.dropLast(2)) : bound)\"}", "\(cumulative)"))
            }
            return out + [("_sum", "\(sum)"), ("_count", "\(count)")]
        }
    }
    let counters = Mutex(Counters())

    /// Why the server closed a Teltonika connection (`TeltonikaListener`).
    public enum TeltonikaClose: Int, CaseIterable, Sendable {
        /// Accepted over the process's bound of open connections (`OpenConnections`).
        case connections
        /// Silent past the listener's idle timeout.
        case idle
        /// A packet the decoder refused (bad CRC, a length over 64 KiB, not Codec 8/8E).
        case malformed

        var label: String {
            switch self {
            case .connections: "connections"
            case .idle: "idle"
            case .malformed: "malformed"
            }
        }
    }

    /// Notes the store's failures for the log, a few lines per outage.
    let failureLog: StoreFailureLog

    /// - Parameter note: gets the lines of `StoreFailureLog`.
    public init(note: @escaping @Sendable (String) -> Void = { _ in }) {
        failureLog = StoreFailureLog(note: note)
    }

    func request(_ endpoint: String) { counters.withLock { $0.requests[endpoint, default: 0] += 1 } }
    func response(_ status: Int) { counters.withLock { $0.responses[status, default: 0] += 1 } }
    /// An ingest request's reply of `status`, `seconds` after the request reached its route.
    func ingestAnswered(_ status: Int, seconds: Double) {
        counters.withLock { c in
            c.responses[status, default: 0] += 1
            c.ingestDuration.observe(seconds)
        }
    }
    func acknowledged(_ fixes: Int) { counters.withLock { $0.acknowledgedFixes += fixes } }
    func rejected(_ fixes: Int) { counters.withLock { $0.rejectedFixes += fixes } }
    func refusedUnknownDevice() { counters.withLock { $0.refusedUnknownDevices += 1 } }
    /// A store operation that failed: counted, and noted (`StoreFailureLog`).
    func storeFailed(_ operation: StoreFailureLog.Operation, _ error: any Error, part: Int = 0, of parts: Int = 1) {
        counters.withLock { $0.storeFailures[operation.rawValue] += 1 }
        failureLog.failed(operation, error, part: part, of: parts)
    }
    /// A store operation that succeeded: noted when it had been failing.
    func storeSucceeded(_ operation: StoreFailureLog.Operation, part: Int = 0, of parts: Int = 1) {
        failureLog.succeeded(operation, part: part, of: parts)
    }
    func liveRefused() { counters.withLock { $0.liveRefused += 1 } }
    /// A live subscriber gave its place to another client's (`LiveFanOut.subscribe`).
    func liveEvicted() { counters.withLock { $0.liveEvicted += 1 } }
    /// A read reply ended before its last byte (`TrackingRoutes.paged`, `TrackingRoutes.wholeTrack`).
    func replyBroken() { counters.withLock { $0.brokenReplies += 1 } }
    /// A read reply's client took nothing for a while (a raw track's reply lets go of its page).
    func replyStalled() { counters.withLock { $0.stalledReplies += 1 } }
    /// A whole track's reply made its bytes again after it let go of them (`TrackingRoutes.wholeTrack`).
    func replyRemade() { counters.withLock { $0.remadeReplies += 1 } }
    func closedTeltonika(_ reason: TeltonikaClose) { counters.withLock { $0.teltonikaClosed[reason.rawValue] += 1 } }
    func settled(rows: Int, seconds: Double) {
        counters.withLock { c in
            c.settles += 1
            c.settledRows += rows
            c.settleSeconds += seconds
            c.settleDuration.observe(seconds)
        }
    }

    func fenceEvents(_ events: [FenceEvent]) {
        counters.withLock { c in for e in events { c.fenceEvents[e.kind.rawValue, default: 0] += 1 } }
    }
    func fenceBatchDecided(secondsAfterAck seconds: Double) {
        counters.withLock { $0.fenceLatency.observe(seconds) }
    }
    func fenceBatchDropped() { counters.withLock { $0.fenceBatchesDropped += 1 } }
    func liveMatched(_ fixes: Int, batchesSecondsAfterAck seconds: [Double]) {
        counters.withLock { c in
            c.liveMatched += fixes
            for s in seconds { c.liveMatchLatency.observe(s) }
        }
    }
    func liveMatchBatchDropped() { counters.withLock { $0.liveMatchBatchesDropped += 1 } }
    func webhookDelivered(_ events: Int) { counters.withLock { $0.webhookDelivered += events } }
    func webhookAttemptFailed() { counters.withLock { $0.webhookFailedAttempts += 1 } }
    func webhookDropped(_ events: Int) { counters.withLock { $0.webhookDropped += events } }

    func releasedMemory(bytes: Int, seconds: Double) {
        counters.withLock { c in
            c.memoryRelease.observe(seconds)
            c.memoryReleasedBytes += bytes
        }
    }

    /// A successful group commit of `rows`, `inserted` of them new, that took `seconds`, its
    /// requests having waited `queueWaits` seconds each before it began.
    func committed(rows: Int, inserted: Int, seconds: Double, queueWaits: some Sequence<Double>) {
        counters.withLock { c in
            c.commits += 1
            c.committedRows += rows
            c.duplicateFixes += rows - inserted
            c.commitSeconds += seconds
            c.batchRows.observe(Double(rows))
            c.commitDuration.observe(seconds)
            for wait in queueWaits { c.queueWait.observe(wait) }
        }
    }

    /// The counters as Prometheus text.
    public func text() -> String {
        let c = counters.withLock { $0 }
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples { out += "\(name)\(labels) \(value)\n" }
        }
        metric("tracking_requests_total", "counter", "Ingest and read requests by endpoint.",
               c.requests.sorted { $0.key < $1.key }.map { ("{endpoint=\"\($0.key)\"}", "\($0.value)") })
        metric("tracking_responses_total", "counter", "Responses by HTTP status.",
               c.responses.sorted { $0.key < $1.key }.map { ("{status=\"\($0.key)\"}", "\($0.value)") })
        metric("tracking_acknowledged_fixes_total", "counter", "Fixes acknowledged after their commit.", [("", "\(c.acknowledgedFixes)")])
        metric("tracking_rejected_fixes_total", "counter", "Fixes refused as invalid.", [("", "\(c.rejectedFixes)")])
        metric("tracking_duplicate_fixes_total", "counter", "Committed fixes already stored (retries).", [("", "\(c.duplicateFixes)")])
        metric("tracking_unknown_device_refusals_total", "counter", "Requests refused for an unregistered device.", [("", "\(c.refusedUnknownDevices)")])
        metric("tracking_commits_total", "counter", "Group commits that succeeded.", [("", "\(c.commits)")])
        metric("tracking_commit_failures_total", "counter", "Group commits the store refused.", [("", "\(c.storeFailures[StoreFailureLog.Operation.commit.rawValue])")])
        metric("tracking_retention_failures_total", "counter", "Retention passes the store refused (tried again at the next).",
               [("", "\(c.storeFailures[StoreFailureLog.Operation.retention.rawValue])")])
        metric("tracking_live_refused_total", "counter",
               "Live subscribers refused: as many as the server takes were connected, and no client held two more than theirs.",
               [("", "\(c.liveRefused)")])
        metric("tracking_live_evicted_total", "counter",
               "Live subscribers closed (1013) to give their place to a client that held fewer.",
               [("", "\(c.liveEvicted)")])
        metric("tracking_broken_replies_total", "counter",
               "Read replies ended before their last byte: the store failed after the reply's head was sent, or the client left.",
               [("", "\(c.brokenReplies)")])
        metric("tracking_stalled_replies_total", "counter",
               "Times a read reply's client took nothing for 50 ms; a raw track's reply then gives back the page it holds, to read again once the client takes more.",
               [("", "\(c.stalledReplies)")])
        metric("tracking_remade_replies_total", "counter",
               "Times a whole track's reply (cleaned, matched) whose client took nothing let go of its bytes for another read's turn, and made them again once the client took more.",
               [("", "\(c.remadeReplies)")])
        metric("tracking_teltonika_closed_total", "counter", "Teltonika connections the server closed, by reason.",
               TeltonikaClose.allCases.map { ("{reason=\"\($0.label)\"}", "\(c.teltonikaClosed[$0.rawValue])") })
        metric("tracking_commit_seconds_total", "counter", "Time spent in successful commits.", [("", "\(c.commitSeconds)")])
        metric("tracking_settles_total", "counter", "Store upkeep transactions between batches (SQLite: moves of fixes).", [("", "\(c.settles)")])
        metric("tracking_settled_rows_total", "counter", "Rows those transactions wrote or deleted.", [("", "\(c.settledRows)")])
        metric("tracking_settle_seconds_total", "counter", "Time the writer spent in them.", [("", "\(c.settleSeconds)")])
        metric("tracking_settle_failures_total", "counter", "Upkeep transactions the store refused (tried again after the next batch).",
               [("", "\(c.storeFailures[StoreFailureLog.Operation.settle.rawValue])")])
        metric("tracking_batch_rows", "histogram", "Rows per group commit.", c.batchRows.samples)
        metric("tracking_ingest_duration_seconds", "histogram",
               "Seconds from an ingest request reaching its route to its reply handed to the connection (decoding, the group commit, the hop back to the event loop).",
               c.ingestDuration.samples)
        metric("tracking_queue_wait_seconds", "histogram",
               "Seconds a request's fixes waited for their group commit to begin (the batch's gathering and the writer's work before it).",
               c.queueWait.samples)
        metric("tracking_commit_duration_seconds", "histogram", "Seconds per successful group commit.", c.commitDuration.samples)
        metric("tracking_settle_duration_seconds", "histogram", "Seconds per upkeep transaction that did work.", c.settleDuration.samples)
        metric("tracking_fence_events_total", "counter", "Geofence events stored, by type.",
               FenceEvent.Kind.allCases.map { ("{type=\"\($0.rawValue)\"}", "\(c.fenceEvents[$0.rawValue] ?? 0)") })
        metric("tracking_fence_decision_seconds", "histogram", "Seconds from a batch's ack to its geofence events stored.", c.fenceLatency.samples)
        metric("tracking_fence_batches_dropped_total", "counter", "Committed batches not decided: the fence queue was full.",
               [("", "\(c.fenceBatchesDropped)")])
        metric("tracking_fence_store_failures_total", "counter", "Fence event writes the store refused (events lost).",
               [("", "\(c.storeFailures[StoreFailureLog.Operation.fenceEvents.rawValue])")])
        metric("tracking_live_matched_fixes_total", "counter", "Fixes of devices that opted in to live matching answered by the online matcher.",
               [("", "\(c.liveMatched)")])
        metric("tracking_live_match_seconds", "histogram", "Seconds from a batch's ack to its live-matched positions published.",
               c.liveMatchLatency.samples)
        metric("tracking_live_match_batches_dropped_total", "counter", "Committed batches not matched live: the matching queue was full.",
               [("", "\(c.liveMatchBatchesDropped)")])
        metric("tracking_webhook_events_delivered_total", "counter", "Events the webhook accepted (2xx).", [("", "\(c.webhookDelivered)")])
        metric("tracking_webhook_failed_attempts_total", "counter", "Webhook POSTs that failed (retried with backoff).",
               [("", "\(c.webhookFailedAttempts)")])
        metric("tracking_webhook_events_dropped_total", "counter", "Events never delivered: queue full or retries exhausted.",
               [("", "\(c.webhookDropped)")])
        metric("tracking_memory_release_duration_seconds", "histogram",
               "Seconds per release of the heap's free pages to the system (malloc_trim; each arena waits for it).", c.memoryRelease.samples)
        metric("tracking_memory_released_bytes_total", "counter", "Bytes the resident set fell by in those releases.",
               [("", "\(c.memoryReleasedBytes)")])
        return out
    }
}
