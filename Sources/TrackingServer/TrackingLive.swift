import GeoCore
import Hummingbird
import HummingbirdWebSocket
import HTTPServing
import NIOCore
import TrackingProtocols

/// `/live?devices=NAME,NAME…` or `/live?bbox=WEST,SOUTH,EAST,NORTH` (degrees; west > east
/// crosses the antimeridian): a WebSocket that sends the followed devices' latest positions
/// first, then, after each committed batch, the fixes that moved them — each message a GeoJSON
/// FeatureCollection of Point features (`TrackOutput.geoJSON`), one per device — and, with
/// `--fences`, the followed devices' fence events as `{"type":"fence-events",…}` messages
/// (`FenceEvent.message`) and, with `--live-match`, their matched positions as
/// `{"type":"matched",…}` messages (`LiveMatchedFix.message`). What the client
/// sends is read and ignored. A query that is neither is refused before the upgrade (400).
/// Messages are written on the connection's event loop (`LiveDelivery`), at most one of
/// positions per `LiveFanOut.interval`. A client that reads slowly gets fewer, fresher messages
/// (`LiveFanOut`'s mailbox keeps the latest fix per device); ingest never waits for it. Past
/// `LiveFanOut.maximumSubscribers` connected subscribers a new one is closed at once with 1013,
/// "try again later" (RFC 6455 §7.4.1; `tracking_live_refused_total`), so subscribers cannot
/// take the descriptors ingest needs, unless another address holds at least two more than the
/// new one's: then that address's newest subscriber is closed so instead
/// (`tracking_live_evicted_total`), and one client cannot keep the others out. Behind a
/// reverse proxy, all share one address.
extension TrackingRoutes {
    /// The most device names one subscription may list.
    static let maximumLiveDevices = 10_000

    static func addLiveRoute(to router: Router<BasicWebSocketRequestContext>, ingest: TrackingIngest) {
        router.ws("/live", shouldUpgrade: { request, _ in
            switch liveFilter(request.uri.query) {
            case .success: return .upgrade([:])
            case .failure(let message): throw HTTPError(.badRequest, message: message.text)
            }
        }, onUpgrade: { inbound, _, context in
            guard case .success(let filter) = liveFilter(context.request.uri.query), let connection = WebSocketConnection.current else { return }
            connection.limitUnsentBytes(to: LiveDelivery.unsentBytes)
            let delivery = LiveDelivery(connection: connection, interval: ingest.live.interval)
            // Decided here, not before the upgrade: only the connection's task knows its client.
            let evicted = { @Sendable in
                ingest.metrics.liveEvicted()
                delivery.close(code: 1013, reason: "a client with fewer live subscribers took this place")
            }
            guard let subscriber = ingest.live.subscribe(filter, client: ServedConnection.clientAddress ?? "", whenEvicted: evicted,
                                                         whenDue: { delivery.schedule($0) }) else {
                ingest.metrics.liveRefused()
                delivery.close(code: 1013, reason: "as many live subscribers as the server takes, and none holds two more than yours")
                return
            }
            defer {
                ingest.live.unsubscribe(subscriber)
                delivery.stop()
            }
            // Subscribed before the latest positions are read: a batch committed in between is
            // in the mailbox too (sent again, never lost).
            let first: [StoredFix]
            switch filter {
            case .devices(let names):
                first = (try? await ingest.store.latest(devices: Array(names))) ?? []
            case .box(let box):
                first = (try? await ingest.store.latest(in: box)) ?? []
            }
            delivery.start(ByteBuffer(bytes: TrackOutput.geoJSON(first)), subscriber)
            // Until the client closes (its messages are not used).
            for try await _ in inbound.messages(maxSize: 1 << 12) {}
        })
    }

    struct LiveFilterError: Error { var text: String }

    /// The subscription a `/live` query asks for, or why it is not one.
    static func liveFilter(_ query: String?) -> Result<LiveFanOut.Filter, LiveFilterError> {
        guard let fields = try? FormFields(Substring(query ?? "")) else { return .failure(LiveFilterError(text: "the query is not a form")) }
        if let list = fields.first("devices")?.value {
            let names = Set(list.split(separator: ",").map(String.init).filter { !$0.isEmpty })
            guard !names.isEmpty, names.count <= maximumLiveDevices else {
                return .failure(LiveFilterError(text: "'devices': 1 to \(maximumLiveDevices) comma-separated names"))
            }
            return .success(.devices(names))
        }
        if let text = fields.first("bbox")?.value {
            let numbers = text.split(separator: ",").compactMap { Double($0) }
            guard numbers.count == 4, let box = try? BoundingBox(south: numbers[1], west: numbers[0], north: numbers[3], east: numbers[2]) else {
                return .failure(LiveFilterError(text: "'bbox': WEST,SOUTH,EAST,NORTH in degrees, south ≤ north"))
            }
            return .success(.box(box))
        }
        return .failure(LiveFilterError(text: "no 'devices' or 'bbox' parameter"))
    }
}
