import Synchronization

/// The access log: one line per request, gathered in memory and handed to `write` in batches by
/// a task of its own (`run`), rather than one `write(2)` per request on the thread answering it.
/// A request then costs an append under a lock instead of a system call, and a slow reader of
/// the log (a terminal, a full pipe) holds up the log's task, not the event loop that serves
/// the other connections.
///
/// A line waits at most `period`. At most `limit` bytes wait: past that (a reader slower than
/// the requests) lines are dropped and counted, and the count is written with the next batch, so
/// memory stays bounded.
final class AccessLog: Sendable {
    private struct Pending {
        var text = ""
        var dropped = 0
    }

    private let pending = Mutex(Pending())
    private let write: @Sendable (String) -> Void
    /// The most bytes of lines held between two batches.
    let limit: Int
    /// The longest a line waits before its batch is written.
    let period: Duration

    /// - Parameter write: gets each batch: whole lines, each ended by a newline.
    init(limit: Int = 1 << 20, period: Duration = .milliseconds(100), write: @escaping @Sendable (String) -> Void) {
        self.limit = limit
        self.period = period
        self.write = write
    }

    /// Adds one line (without its newline) to the next batch, or counts it as dropped when
    /// `limit` bytes already wait.
    func append(_ line: String) {
        pending.withLock { p in
            guard p.text.utf8.count + line.utf8.count < limit else { return p.dropped += 1 }
            p.text += line
            p.text += "\n"
        }
    }

    /// Writes what waits, and how many lines were dropped since the last batch, if any.
    func flush() {
        var (text, dropped) = pending.withLock { p in
            defer { p = Pending() }
            return (p.text, p.dropped)
        }
        if dropped > 0 { text += "\(dropped) access-log lines dropped: written slower than requests came\n" }
        if !text.isEmpty { write(text) }
    }

    /// Flushes every `period` until the task is cancelled, then once more.
    func run() async {
        while (try? await Task.sleep(for: period)) != nil { flush() }
        flush()
    }
}
