import Foundation
import SystemIO
import Platform

/// A `--webhook` URL that is not `http://HOST:PORT/PATH`.
public struct WebhookURLError: Error, CustomStringConvertible {
    public var url: String
    public var description: String { "--webhook '\(url)': not http://HOST[:PORT]/PATH (no TLS)" }
}

/// POSTs fence events to a webhook from a thread of its own, so a slow or dead receiver never
/// slows ingest or the fence decisions: `enqueue` hands them to a bounded queue and returns.
///
/// Each POST carries up to ``batchEvents`` events as `FenceEvent.message` JSON
/// (`Content-Type: application/json`, `Connection: close`); a 2xx status is delivery. A refused
/// connection, a timeout (2 s to connect, 5 s for the answer) or another status is retried after
/// 0.5, 1, 2 and 4 s (exponential backoff), then the events are dropped. Delivery is at least
/// once: a POST that arrived but whose answer timed out is sent again, so a receiver tells
/// events apart by device, fence, type and time (as the store does). The queue holds at most
/// ``maximumEvents``; past that new events are dropped. Every drop is counted
/// (`tracking_webhook_events_dropped_total`); the events stay in the store either way.
final class FenceWebhook: @unchecked Sendable {
    static let maximumEvents = 10_000
    static let batchEvents = 500
    static let attempts = 5
    static let firstBackoff = 0.5

    let host: String
    let port: Int
    let path: String
    let metrics: TrackingMetrics
    private let queue = WorkQueue<FenceEvent>(capacity: FenceWebhook.maximumEvents, stop: .now)

    init(url: String, metrics: TrackingMetrics) throws(WebhookURLError) {
        guard let parts = URLComponents(string: url), parts.scheme == "http", let host = parts.host, !host.isEmpty else {
            throw WebhookURLError(url: url)
        }
        let port = parts.port ?? 80
        guard (1...65_535).contains(port) else { throw WebhookURLError(url: url) }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.path = (parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath) + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        self.metrics = metrics
        let thread = Thread { self.run() }
        thread.name = "fence-webhook"
        thread.start()
    }

    /// Queues events for delivery; never waits.
    func enqueue(_ events: [FenceEvent]) {
        let refused = queue.put(events)
        if refused > 0 { metrics.webhookDropped(refused) }
    }

    /// Ends the thread (at once, or after the POST under way); what is queued is not sent.
    func stop() { queue.stop() }

    private func run() {
        while let batch = queue.take(upTo: Self.batchEvents) { deliver(batch) }
    }

    /// POSTs one batch, retrying with backoff; counts the outcome.
    private func deliver(_ batch: [FenceEvent]) {
        let body = FenceEvent.message(batch)
        var backoff = Self.firstBackoff
        for attempt in 1...Self.attempts {
            if post(body) {
                metrics.webhookDelivered(batch.count)
                return
            }
            metrics.webhookAttemptFailed()
            guard attempt < Self.attempts, queue.pause(backoff) else { break }
            backoff *= 2
        }
        metrics.webhookDropped(batch.count)
    }

    /// One POST; whether the receiver answered 2xx.
    private func post(_ body: [UInt8]) -> Bool {
        do {
            let socket = try TCPClient.connect(host: host, port: port, timeout: .seconds(2))
            defer { try? socket.close() }
            var limit = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            let head = "POST \(path) HTTP/1.1\r\nHost: \(authority)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            try socket.writeAll(Array(head.utf8) + body)
            let reply = try socket.readToEnd(limit: 1 << 16)
            let status = String(decoding: reply.prefix(12), as: UTF8.self).split(separator: " ")
            return status.count >= 2 && status[0].hasPrefix("HTTP/1.") && status[1].hasPrefix("2") && status[1].count == 3
        } catch {
            return false
        }
    }
}
