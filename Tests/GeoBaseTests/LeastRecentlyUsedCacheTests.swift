import GeoBase
import Testing

/// The bounded least-recently-used cache that `geo tiles render` (decoded source tiles) and
/// `MapView` (rendered raster tiles) share.
struct LeastRecentlyUsedCacheTests {
    @Test func full_dropsTheLeastRecentlyUsed() {
        var cache = LeastRecentlyUsedCache<String, Int>(capacity: 3)
        #expect(cache.insert(1, forKey: "a") == nil)
        cache.insert(2, forKey: "b")
        cache.insert(3, forKey: "c")
        #expect(cache.value(forKey: "a") == 1, "reading a makes b the least recently used")
        let dropped = cache.insert(4, forKey: "d")
        #expect(dropped?.key == "b" && dropped?.value == 2)
        #expect(!cache.contains("b") && cache.count == 3)
        #expect(cache.keysByRecency == ["d", "a", "c"])
    }

    @Test func peek_leavesTheOrderAlone() {
        var cache = LeastRecentlyUsedCache<Int, String>(capacity: 2)
        cache.insert("one", forKey: 1)
        cache.insert("two", forKey: 2)
        #expect(cache.peekValue(forKey: 1) == "one")
        #expect(cache.insert("three", forKey: 3)?.key == 1, "a peek does not count as a use")
    }

    @Test func insertingAHeldKey_replacesItsValueAndDropsNothing() {
        var cache = LeastRecentlyUsedCache<Int, String>(capacity: 2)
        cache.insert("one", forKey: 1)
        cache.insert("two", forKey: 2)
        #expect(cache.insert("uno", forKey: 1) == nil)
        #expect(cache.count == 2 && cache.peekValue(forKey: 1) == "uno")
        #expect(cache.keysByRecency == [1, 2])
    }

    @Test func capacityZero_holdsNothing() {
        var cache = LeastRecentlyUsedCache<Int, Int>(capacity: 0)
        #expect(cache.insert(7, forKey: 1)?.value == 7)
        #expect(cache.isEmpty && cache.value(forKey: 1) == nil)
    }

    @Test func removedValues_areReleased() {
        final class Token {}
        weak var held: Token?
        var cache = LeastRecentlyUsedCache<Int, Token>(capacity: 4)
        do {
            let t = Token()
            held = t
            cache.insert(t, forKey: 1)
            cache.insert(Token(), forKey: 2)
        }
        #expect(held != nil)
        cache.removeValue(forKey: 1)
        #expect(held == nil, "a removed entry's value is not kept in a free slot")
    }

    /// 50 seeds × 2,000 random operations on keys 0..<12 against a plain list ordered by
    /// recency: the same values, the same drops, the same order after every operation.
    @Test func randomOperations_matchAListModel() {
        for seed in 0..<50 {
            var rng = SplitMix64(seed: UInt64(seed))
            let capacity = Int(rng.next() % 6) + 1
            var cache = LeastRecentlyUsedCache<Int, Int>(capacity: capacity)
            var model: [(key: Int, value: Int)] = []   // most recent first
            for step in 0..<2_000 {
                let key = Int(rng.next() % 12)
                switch rng.next() % 5 {
                case 0, 1:
                    let value = Int(rng.next() % 1000)
                    var expectedDrop: Int?
                    if let i = model.firstIndex(where: { $0.key == key }) {
                        model.remove(at: i)
                    } else if model.count == capacity {
                        expectedDrop = model.removeLast().key
                    }
                    model.insert((key, value), at: 0)
                    #expect(cache.insert(value, forKey: key)?.key == expectedDrop, "seed \(seed) step \(step)")
                case 2:
                    let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                    if let e = expected { model.insert(e, at: 0) }
                    #expect(cache.value(forKey: key) == expected?.value, "seed \(seed) step \(step)")
                case 3:
                    let expected = model.popLast()
                    let dropped = cache.removeLeastRecentlyUsed()
                    #expect(dropped?.key == expected?.key && dropped?.value == expected?.value, "seed \(seed) step \(step)")
                default:
                    let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                    #expect(cache.removeValue(forKey: key) == expected?.value, "seed \(seed) step \(step)")
                }
                #expect(cache.keysByRecency == model.map(\.key), "seed \(seed) step \(step)")
                cache._checkInvariants()
            }
        }
    }
}
