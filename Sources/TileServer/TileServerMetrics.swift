import Synchronization

/// The tile server's counters in the Prometheus text exposition format (version 0.0.4), for
/// `/metrics`: requests by kind and status, body bytes sent, a latency histogram, the raster
/// tile cache's hits, misses, drops and size, and the JSON documents made and answered from
/// `DocumentCache`.
final class TileServerMetrics: Sendable {
    private struct Counters {
        var requests: [Key: Int] = [:]
        var bytes = 0
        var seconds = 0.0
        var count = 0
        /// Requests answered within each of `bounds` (not cumulative here), and slower.
        var buckets = [Int](repeating: 0, count: TileServerMetrics.bounds.count + 1)
    }

    private struct Key: Hashable, Comparable {
        let kind: String, status: Int
        static func < (a: Key, b: Key) -> Bool { (a.kind, a.status) < (b.kind, b.status) }
    }

    /// Histogram bucket bounds, seconds.
    static let bounds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    private let counters = Mutex(Counters())

    /// Counts one answered request: its route kind (`tile`, `tilejson`, …), status, body
    /// bytes and the time from its arrival to its answer, seconds.
    func record(kind: String, status: Int, bytes: Int, seconds: Double) {
        counters.withLock { c in
            c.requests[Key(kind: kind, status: status), default: 0] += 1
            c.bytes += bytes
            c.seconds += seconds
            c.count += 1
            c.buckets[Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count] += 1
        }
    }

    /// The counters, and the caches', as Prometheus text.
    func text(rasterCache cache: ByteBoundedCache<RasterTileKey>.Statistics, documents: DocumentCache.Statistics) -> String {
        let c = counters.withLock { $0 }
        var out = "# HELP tileserver_requests_total Requests by route kind and HTTP status.\n# TYPE tileserver_requests_total counter\n"
        for (key, n) in c.requests.sorted(by: { $0.key < $1.key }) {
            out += "tileserver_requests_total{kind=\"\(key.kind)\",status=\"\(key.status)\"} \(n)\n"
        }
        out += "# HELP tileserver_response_bytes_total Body bytes sent.\n# TYPE tileserver_response_bytes_total counter\n"
        out += "tileserver_response_bytes_total \(c.bytes)\n"
        out += "# HELP tileserver_request_seconds Time from a request's head to its answer.\n# TYPE tileserver_request_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in Self.bounds.enumerated() {
            cumulative += c.buckets[i]
            out += "tileserver_request_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "tileserver_request_seconds_bucket{le=\"+Inf\"} \(c.count)\n"
        out += "tileserver_request_seconds_sum \(c.seconds)\ntileserver_request_seconds_count \(c.count)\n"
        for (name, kind, help, value) in [("hits_total", "counter", "Raster tiles answered from the cache.", cache.hits),
                                          ("misses_total", "counter", "Raster tiles not in the cache (their 4 x 4 block drawn).", cache.misses),
                                          ("evictions_total", "counter", "Raster tiles dropped to stay within the cache's bytes.", cache.evictions),
                                          ("bytes", "gauge", "PNG bytes held by the raster cache.", cache.bytes),
                                          ("tiles", "gauge", "Raster tiles held by the raster cache.", cache.entries)] {
            out += "# HELP tileserver_raster_cache_\(name) \(help)\n# TYPE tileserver_raster_cache_\(name) \(kind)\ntileserver_raster_cache_\(name) \(value)\n"
        }
        for (name, help, value) in [("hits_total", "TileJSON, index and style documents answered as made before.", documents.hits),
                                    ("misses_total", "TileJSON, index and style documents made (a new tileset or style version, or Host).", documents.misses)] {
            out += "# HELP tileserver_document_cache_\(name) \(help)\n# TYPE tileserver_document_cache_\(name) counter\ntileserver_document_cache_\(name) \(value)\n"
        }
        return out
    }
}
