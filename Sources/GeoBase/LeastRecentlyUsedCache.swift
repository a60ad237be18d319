/// A map from keys to values holding at most `capacity` entries: inserting a new key into a
/// full cache drops the least recently used entry (an entry is used when it is inserted or read
/// with `value(forKey:)`; `peekValue(forKey:)` leaves the order alone).
///
/// Entries sit in one dense array threaded by a doubly linked list from the most to the least
/// recently used (indices, not references), with a dictionary from key to position; a removed
/// entry's place is filled by the last one, so nothing removed stays referenced.
/// - Complexity: every operation O(1) on average (hashing the key), `removeAll` O(count).
package struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    fileprivate struct Entry {
        var key: Key
        var value: Value
        /// Neighbours in the recency list: the next more recently used entry, the next less.
        var newer: Int, older: Int
    }

    /// The most entries held; 0 holds none.
    package let capacity: Int
    private var entries: [Entry] = []
    private var positions: [Key: Int] = [:]
    /// Positions in `entries` of the ends of the recency list, -1 when empty.
    private var newest = -1, oldest = -1

    /// An empty cache for at most `capacity` entries (0 or more).
    package init(capacity: Int) {
        precondition(capacity >= 0, "Broken contract: a cache's capacity is 0 or more, got \(capacity)")
        self.capacity = capacity
        entries.reserveCapacity(min(capacity, 1024))
    }

    /// Entries held now.
    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }

    package func contains(_ key: Key) -> Bool { positions[key] != nil }

    /// The value for `key`, which becomes the most recently used; nil when not held.
    package mutating func value(forKey key: Key) -> Value? {
        guard let i = positions[key] else { return nil }
        moveToNewest(i)
        return entries[i].value
    }

    /// The value for `key` without marking it used; nil when not held.
    package func peekValue(forKey key: Key) -> Value? {
        positions[key].map { entries[$0].value }
    }

    /// Keys from the most recently used to the least.
    /// - Complexity: O(count).
    package var keysByRecency: [Key] {
        var out: [Key] = []
        out.reserveCapacity(entries.count)
        var i = newest
        while i >= 0 { out.append(entries[i].key); i = entries[i].older }
        return out
    }

    /// Holds `value` for `key` as the most recently used entry, replacing a value already held;
    /// returns the entry dropped to make room (the least recently used), if any. With capacity 0
    /// nothing is held and the new entry itself is returned.
    @discardableResult
    package mutating func insert(_ value: Value, forKey key: Key) -> (key: Key, value: Value)? {
        if let i = positions[key] {
            entries[i].value = value
            moveToNewest(i)
            return nil
        }
        guard capacity > 0 else { return (key, value) }
        var dropped: (key: Key, value: Value)?
        if entries.count == capacity { dropped = removeLeastRecentlyUsed() }
        entries.append(Entry(key: key, value: value, newer: -1, older: newest))
        let i = entries.count - 1
        if newest >= 0 { entries[newest].newer = i } else { oldest = i }
        newest = i
        positions[key] = i
        _checkInvariants()
        return dropped
    }

    /// Removes and returns the value for `key`; nil when not held.
    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        guard let i = positions[key] else { return nil }
        let value = entries[i].value
        remove(at: i)
        _checkInvariants()
        return value
    }

    /// Removes and returns the least recently used entry; nil when empty (a cache bounded by
    /// something other than its count, such as bytes, drops entries this way).
    @discardableResult
    package mutating func removeLeastRecentlyUsed() -> (key: Key, value: Value)? {
        guard oldest >= 0 else { return nil }
        let e = entries[oldest]
        remove(at: oldest)
        _checkInvariants()
        return (e.key, e.value)
    }

    package mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        newest = -1
        oldest = -1
    }

    /// Takes entry `i` out of the recency list.
    private mutating func unlink(_ i: Int) {
        let e = entries[i]
        if e.newer >= 0 { entries[e.newer].older = e.older } else { newest = e.older }
        if e.older >= 0 { entries[e.older].newer = e.newer } else { oldest = e.newer }
    }

    private mutating func moveToNewest(_ i: Int) {
        guard i != newest else { return }
        unlink(i)
        entries[i].newer = -1
        entries[i].older = newest
        entries[newest].newer = i
        newest = i
        _checkInvariants()
    }

    /// Removes entry `i`, moving the last entry into its place.
    private mutating func remove(at i: Int) {
        unlink(i)
        positions[entries[i].key] = nil
        let last = entries.count - 1
        if i != last {
            let moved = entries[last]
            entries[i] = moved
            positions[moved.key] = i
            if moved.newer >= 0 { entries[moved.newer].older = i } else { newest = i }
            if moved.older >= 0 { entries[moved.older].newer = i } else { oldest = i }
        }
        entries.removeLast()
    }
}

extension LeastRecentlyUsedCache {
    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant, unless the cache holds at most `capacity`
    /// entries, the dictionary names each entry's own position, and the recency list runs from
    /// `newest` to `oldest` through every entry once with matching links both ways
    /// (swift-collections' `_checkInvariants()` pattern; `GEO_INTERNAL_CHECKS=1` compiles it in).
    /// - Complexity: O(count).
    @inline(never)
    package func _checkInvariants() {
        precondition(entries.count <= capacity, "LeastRecentlyUsedCache: \(entries.count) entries over capacity \(capacity)")
        precondition(positions.count == entries.count, "LeastRecentlyUsedCache: \(positions.count) keys for \(entries.count) entries")
        for (i, e) in entries.enumerated() {
            precondition(positions[e.key] == i, "LeastRecentlyUsedCache: entry \(i)'s key points elsewhere")
        }
        var seen = 0, i = newest, previous = -1
        while i >= 0 {
            precondition(i < entries.count && seen < entries.count, "LeastRecentlyUsedCache: the recency list leaves the entries or loops")
            precondition(entries[i].newer == previous, "LeastRecentlyUsedCache: entry \(i)'s newer link is not \(previous)")
            previous = i
            i = entries[i].older
            seen += 1
        }
        precondition(seen == entries.count && previous == oldest, "LeastRecentlyUsedCache: the recency list holds \(seen) of \(entries.count) entries")
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the cache's invariants.
    @inline(__always)
    package func _checkInvariants() {}
    #endif
}

extension LeastRecentlyUsedCache: Sendable where Key: Sendable, Value: Sendable {}
extension LeastRecentlyUsedCache.Entry: Sendable where Key: Sendable, Value: Sendable {}
