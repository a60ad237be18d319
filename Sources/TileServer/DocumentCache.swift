import GeoBase
import GeoCore
import Hummingbird
import Synchronization

/// The JSON documents the server answers (TileJSON, the index, rewritten styles) as encoded
/// bytes, made once per version of what they are made of rather than per request: encoding a
/// TileJSON with its `vector_layers` through `JSONEncoder` cost more than everything else a
/// request does (57 % of the server's CPU time under wrk, `perf`, before this cache).
///
/// A key names the document, the `base` URL it points at (the request's `Host`) and a version
/// (the tilesets' `ReopeningMapSource` generations, and for a style the `contentHash` of its file), so
/// a replaced archive or style makes new keys and its old documents age out. At most
/// `capacity` documents are held, the least recently used dropped first.
final class DocumentCache: Sendable {
    struct Key: Hashable, Sendable {
        /// What the document is: `tilejson/monaco`, `index`, `style/bright`.
        var document: String
        /// `http://` and the request's `Host`.
        var base: String
        var version: UInt64
    }

    /// Documents made (misses) and answered from the cache (hits), for `/metrics`.
    struct Statistics: Sendable, Equatable {
        var hits = 0, misses = 0
    }

    private struct State {
        var documents: LeastRecentlyUsedCache<Key, ByteBuffer>
        var statistics = Statistics()
    }

    private let state: Mutex<State>

    /// - Parameter capacity: the most documents held (a style is tens of KiB).
    init(capacity: Int = 64) {
        state = Mutex(State(documents: LeastRecentlyUsedCache(capacity: capacity)))
    }

    /// The document of `key`: held, or made by `make` (outside the lock), encoded and held.
    func document(_ key: Key, make: () -> JSONValue) -> ByteBuffer {
        held(key) ?? hold(ByteBuffer(string: TileDocuments.text(make())), for: key)
    }

    /// The document of `key` as `document(_:make:)`; nil, and nothing held, when `make` gives
    /// nil (a style file that is not a JSON object).
    func document(_ key: Key, ifMade make: () -> JSONValue?) -> ByteBuffer? {
        if let held = held(key) { return held }
        return make().map { hold(ByteBuffer(string: TileDocuments.text($0)), for: key) }
    }

    private func held(_ key: Key) -> ByteBuffer? {
        state.withLock { s in
            let held = s.documents.value(forKey: key)
            if held != nil { s.statistics.hits += 1 }
            return held
        }
    }

    private func hold(_ document: ByteBuffer, for key: Key) -> ByteBuffer {
        state.withLock { s in
            s.statistics.misses += 1
            s.documents.insert(document, forKey: key)
        }
        return document
    }

    var statistics: Statistics { state.withLock { $0.statistics } }
}
