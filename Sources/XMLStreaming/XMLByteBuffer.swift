#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Frees a buffer's memory when the last copy of its owner goes away.
final class BufferOwner {
    var pointer: UnsafeMutablePointer<UInt8>
    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
    deinit { pointer.deallocate() }
}

/// A growable byte buffer with O(1) reset, reused across tokens in a reader's hot path
/// (an `Array` pays a uniqueness check per append and a generic path per `removeAll`):
/// decoded text, captured raw markup.
///
/// Copies share storage: keep one owner (the reader's state) and do not copy it.
public struct XMLByteBuffer {
    private let owner: BufferOwner
    public private(set) var base: UnsafeMutablePointer<UInt8>
    public private(set) var count = 0
    private var capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        owner = BufferOwner(base)
    }

    public var isEmpty: Bool { count == 0 }

    /// The bytes, valid until the next mutation.
    public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    public mutating func reset() { count = 0 }

    public mutating func removeLast(_ n: Int) { count -= n }

    @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    public mutating func append(_ p: UnsafePointer<UInt8>, count n: Int) {
        if count + n > capacity { grow(to: count + n) }
        (base + count).update(from: p, count: n)
        count += n
    }

    public mutating func append(_ other: UnsafeBufferPointer<UInt8>) {
        if let p = other.baseAddress { append(p, count: other.count) }
    }

    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        for b in bytes { append(b) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        owner.pointer = bigger
        capacity = c
    }

    /// The bytes as a String (invalid UTF-8 repaired with U+FFFD).
    public func string() -> String { String(decoding: bytes, as: UTF8.self) }
}
