import Platform

/// Frees a buffer's memory when the last copy of its owner goes away (the elements are
/// plain values: nothing to deinitialize).
@usableFromInline
final class BufferOwner<Element: BitwiseCopyable> {
    var pointer: UnsafeMutablePointer<Element>
    init(_ pointer: UnsafeMutablePointer<Element>) { self.pointer = pointer }
    deinit { pointer.deallocate() }

    /// Moves the first `count` elements into new memory of `capacity` elements and frees the
    /// old; returns the new memory (now `pointer`).
    func reallocate(keeping count: Int, capacity: Int) -> UnsafeMutablePointer<Element> {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        bigger.update(from: pointer, count: count)
        pointer.deallocate()
        pointer = bigger
        return bigger
    }
}

/// A growable stack of plain values in unsafe storage, for the scanner's per-element and
/// per-attribute bookkeeping (an `Array` pays a uniqueness check per mutation and a bounds
/// check per access). Indices are the caller's to keep in `0..<count`.
///
/// Copies share storage: keep one owner (the scanner) and do not copy it.
@usableFromInline
struct XMLStack<Element: BitwiseCopyable> {
    private let owner: BufferOwner<Element>
    @usableFromInline private(set) var base: UnsafeMutablePointer<Element>
    @usableFromInline private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        owner = BufferOwner(base)
    }

    @inlinable subscript(i: Int) -> Element { base[i] }

    var last: Element? { count > 0 ? base[count - 1] : nil }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        base[count] = element
        count += 1
    }

    /// Sets the element at `i`, which may be `count` (an append).
    @inline(__always)
    mutating func set(_ element: Element, at i: Int) {
        if i == count { append(element) } else { base[i] = element }
    }

    @inline(__always)
    mutating func removeLast() { count -= 1 }

    @inline(never)
    private mutating func grow() {
        base = owner.reallocate(keeping: count, capacity: capacity * 2)
        capacity *= 2
    }
}

/// A growable byte buffer with O(1) reset, reused across tokens in a reader's hot path
/// (an `Array` pays a uniqueness check per append and a generic path per `removeAll`):
/// decoded text, captured raw markup.
///
/// Copies share storage: keep one owner (the reader's state) and do not copy it.
public struct XMLByteBuffer {
    private let owner: BufferOwner<UInt8>
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
        base = owner.reallocate(keeping: count, capacity: c)
        capacity = c
    }

    /// The bytes as a String (invalid UTF-8 repaired with U+FFFD).
    public func string() -> String { String(decoding: bytes, as: UTF8.self) }
}
