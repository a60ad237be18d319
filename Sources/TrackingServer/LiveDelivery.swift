import Platform
import HTTPServing
import NIOCore

/// Sends one `/live` subscriber's mailbox on its WebSocket connection, on the connection's event
/// loop: no Swift task between the committer and the socket, and at most one message of
/// positions (and one of fence events) per `interval`, each holding every fix that came for the
/// subscriber since the last (the mailbox keeps the latest per device). The first fix after a
/// quiet spell leaves at once; under a steady stream a subscriber gets one message per `interval`
/// rather than one per committed batch (2,000 devices at 1 Hz commit about 150 batches a second:
/// 1,000 subscribers of 100 devices each were sent 100,000 messages a second of one fix each).
/// Nothing is taken while the connection holds more than `unsentBytes` unsent: the fixes of a
/// client that does not read, or reads slowly, wait in its mailbox, one per device (the latest),
/// and the server's buffers for it stop at `unsentBytes` and one message.
final class LiveDelivery: Sendable {
    /// The most a `/live` connection holds unsent, in the server's buffer and again in the
    /// kernel's (`WebSocketConnection.limitUnsentBytes`), bytes: a message of 100 devices is
    /// about 20 KB. With the kernel's own loopback send buffer (up to 4 MB) 1,000 Python
    /// subscribers that fell behind were sent fixes 30 s old (p50) while their mailboxes, which
    /// keep only the latest, stayed empty.
    static let unsentBytes = 32 * 1024

    let connection: WebSocketConnection
    /// The least time between two messages to this subscriber.
    let interval: TimeAmount
    struct State {
        /// Whether the first message (latest positions) was written: deliveries wait for it.
        var started = false
        var stopped = false
        /// When the last message was written.
        var lastSent = NIODeadline.uptimeNanoseconds(0)
    }
    private let state: NIOLoopBoundBox<State>

    init(connection: WebSocketConnection, interval: Duration) {
        self.connection = connection
        self.interval = TimeAmount(interval)
        state = .makeBoxSendingValue(State(), eventLoop: connection.eventLoop)
    }

    /// The subscriber's `whenDue`: a delivery once `interval` has passed since the last.
    func schedule(_ subscriber: LiveFanOut.Subscriber) {
        connection.eventLoop.execute { self.deliverWhenDue(subscriber) }
    }

    /// Writes `first` (the latest positions), then what the mailbox got meanwhile, `interval` later.
    func start(_ first: ByteBuffer, _ subscriber: LiveFanOut.Subscriber) {
        connection.eventLoop.execute {
            guard !self.state.value.stopped else { return }
            self.connection.writeTexts([first])
            self.state.value.started = true
            self.state.value.lastSent = .now()
            self.deliverWhenDue(subscriber)
        }
    }

    /// No more deliveries (the connection ended).
    func stop() {
        connection.eventLoop.execute { self.state.value.stopped = true }
    }

    /// No more deliveries, then a close frame with `code` and `reason` (RFC 6455 §7.4) and the
    /// connection closed: nothing is sent after the close frame.
    func close(code: UInt16, reason: String) {
        connection.eventLoop.execute {
            self.state.value.stopped = true
            self.connection.close(code: code, reason: reason)
        }
    }

    private func deliverWhenDue(_ subscriber: LiveFanOut.Subscriber) {
        // Before `start`, the due delivery waits for it (`start` delivers).
        guard state.value.started, !state.value.stopped else { return }
        let wait = state.value.lastSent + interval - .now()
        guard wait > .zero else { return deliver(subscriber) }
        connection.eventLoop.scheduleTask(in: wait) { self.deliver(subscriber) }
    }

    private func deliver(_ subscriber: LiveFanOut.Subscriber) {
        guard !state.value.stopped, connection.isActive else { return }
        guard connection.isWritable else {
            // Still due: what comes meanwhile waits in the mailbox, and so does this delivery.
            connection.eventLoop.scheduleTask(in: interval) { self.deliver(subscriber) }
            return
        }
        let (fixes, events, matched) = subscriber.take()
        var messages: [ByteBuffer] = []
        if !fixes.isEmpty { messages.append(ByteBuffer(bytes: TrackOutput.geoJSON(features: fixes.map(\.feature)))) }
        if !events.isEmpty { messages.append(ByteBuffer(bytes: FenceEvent.message(events))) }
        if !matched.isEmpty { messages.append(ByteBuffer(bytes: LiveMatchedFix.message(matched))) }
        guard !messages.isEmpty else { return }
        connection.writeTexts(messages)
        state.value.lastSent = .now()
    }
}
