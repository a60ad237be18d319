/// A map from keys to values holding at most `capacity` entries: inserting a new key into a
/// full cache drops the least recently used entry (an entry is used when it is inserted or read
/// with `value(forKey:)`; `peekValue(forKey:)` leaves the order alone).
///
/// Entries sit in one dense array threaded by a doubly linked list from the most to the least
/// recently used (indices, not references), with a dictionary from key to position; a removed
/// entry's place is filled by the last one, so nothing removed stays referenced.
/// - Complexity: every operation O(1) on average (hashing the key), `removeAll` O(count).
public struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    fileprivate struct Entry {
        var key: Key
        var value: Value
        /// Neighbours in the recency list: the next more recently used entry, the next less.
        var newer: Int, older: Int
    }

    /// The most entries held; 0 holds none.
    public let capacity: Int
    private var entries: [Entry] = []
    private var positions: [Key: Int] = [:]
    /// Positions in `entries` of the ends of the recency list, -1 when empty.
    private var newest = -1, oldest = -1

    /// An empty cache for at most `capacity` entries (0 or more).
    public init(capacity: Int) {
        precondition(capacity >= 0, "Broken contract: a cache's capacity is 0 or more, got \(capacity)")
        self.capacity = capacity
        entries.reserveCapacity(min(capacity, 1024))
    }

    /// Entries held now.
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public func contains(_ key: Key) -> Bool { positions[key] != nil }

    /// The value for `key`, which becomes the most recently used; nil when not held.
    public mutating func value(forKey key: Key) -> Value? {
        guard let i = positions[key] else { return nil }
        moveToNewest(i)
        return entries[i].value
    }

    /// The value for `key` without marking it used; nil when not held.
    public func peekValue(forKey key: Key) -> Value? {
        positions[key].map { entries[$0].value }
    }

    /// Keys from the most recently used to the least.
    /// - Complexity: O(count).
    public var keysByRecency: [Key] {
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
    public mutating func insert(_ value: Value, forKey key: Key) -> (key: Key, value: Value)? {
        if let i = positions[key] {
            entries[i].value = value
            moveToNewest(i)
            return nil
        }
        guard capacity > 0 else { return (key, value) }
        var dropped: (key: Key, value: Value)?
        if entries.count == capacity {
            let e = entries[oldest]
            dropped = (e.key, e.value)
            remove(at: oldest)
        }
        entries.append(Entry(key: key, value: value, newer: -1, older: newest))
        let i = entries.count - 1
        if newest >= 0 { entries[newest].newer = i } else { oldest = i }
        newest = i
        positions[key] = i
        return dropped
    }

    /// Removes and returns the value for `key`; nil when not held.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let i = positions[key] else { return nil }
        let value = entries[i].value
        remove(at: i)
        return value
    }

    public mutating func removeAll() {
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

extension LeastRecentlyUsedCache: Sendable where Key: Sendable, Value: Sendable {}
extension LeastRecentlyUsedCache.Entry: Sendable where Key: Sendable, Value: Sendable {}
