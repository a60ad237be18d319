package import GeoBase

/// One column of a road graph: `count` fixed-width elements, contiguous and immutable, held
/// either in memory the column owns (a graph built or copied in) or in place in the pages of a
/// graph file mapped read-only (`RoadGraph(reading:)` over a regular file), as OSRM's engine
/// reads its data files in place: no copy, no page the process allocates, and the pages shared
/// by every process that maps the same file. (Copying the columns out of the file was half of
/// `geo match`'s CPU on a 15 MB graph: the kernel allocating, zeroing and charging a fresh page
/// for every 4 KiB read.)
@usableFromInline package struct GraphColumn<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    /// What keeps `base` alive and unchanged: a `ColumnBuffer` or the mapped file.
    @usableFromInline let owner: AnyObject?
    @usableFromInline let base: UnsafePointer<Element>?
    @usableFromInline package let count: Int

    /// A column holding a copy of `elements`.
    package init(_ elements: some Collection<Element>) {
        self.init(count: elements.count) { _ = $0.initialize(fromContentsOf: elements) }
    }

    /// A column of `count` elements that `body` writes, every one of them, into memory the
    /// column owns (a file's bytes read straight in).
    /// - Throws: what `body` throws; the memory is then freed.
    package init(count: Int, initializingWith body: (UnsafeMutableBufferPointer<Element>) throws -> Void) rethrows {
        let buffer = ColumnBuffer<Element>(count: count)
        try body(buffer.elements)
        owner = buffer
        base = UnsafePointer(buffer.elements.baseAddress)
        self.count = count
    }

    /// A column over `count` elements at `address` inside `bytes`, kept alive by `bytes`.
    /// - Precondition: the elements lie inside `bytes.bytes`, aligned for `Element`.
    package init(_ bytes: any StableBytes, at address: UnsafeRawPointer?, count: Int) {
        let size = count * MemoryLayout<Element>.stride
        if size > 0, let address, let start = bytes.bytes.baseAddress {
            precondition(address >= start && address + size <= start + bytes.bytes.count
                         && Int(bitPattern: address) % MemoryLayout<Element>.alignment == 0)
            base = address.assumingMemoryBound(to: Element.self)
        } else {
            precondition(size == 0)
            base = nil
        }
        owner = bytes
        self.count = count
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { count }

    @inlinable package subscript(position: Int) -> Element {
        precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "GraphColumn index out of range")
        return base.unsafelyUnwrapped[position]
    }

    /// Calls `body` with the elements in place.
    package func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try withExtendedLifetime(owner) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }
}

extension GraphColumn {
    /// The index of the first element that fails `isValid`, or nil. A first pass, which the
    /// compiler vectorises, asks whether any does; only then is the column searched. (The
    /// graph reader checks every element of every column so: element by element, each check a
    /// throw, the checks were 9 % of `geo match`'s instructions on an 18 MB graph.)
    /// `isValid` should be one comparison: `&&` branches, and a branch keeps the pass scalar.
    @inline(__always) package func firstIndex(failing isValid: (Element) -> Bool) -> Int? {
        allPass(isValid) ? nil : firstIndex(where: { !isValid($0) })
    }

    /// The first index `i` whose elements `i` and `i + 1` fail `isValid`, or nil; found as
    /// `firstIndex(failing:)` finds an element.
    @inline(__always) package func firstIndex(ofPairFailing isValid: (Element, Element) -> Bool) -> Int? {
        let pairs = 0..<Swift.max(0, count - 1)
        return allPairsPass(isValid) ? nil : pairs.first { !isValid(self[$0], self[$0 + 1]) }
    }

    /// Whether every element passes `isValid`: one pass with no early exit and no branch per
    /// element. Not inlined: a search loop after it in the same function kept the compiler
    /// from vectorising it (Swift 6.3); each caller's closure still gets its own copy.
    @inline(never) func allPass(_ isValid: (Element) -> Bool) -> Bool {
        withUnsafeBufferPointer { b in
            var failures: UInt32 = 0
            for i in 0..<b.count { failures |= isValid(b[i]) ? 0 : 1 }
            return failures == 0
        }
    }

    /// Whether every two neighbouring elements pass `isValid`, as `allPass(_:)`.
    @inline(never) func allPairsPass(_ isValid: (Element, Element) -> Bool) -> Bool {
        withUnsafeBufferPointer { b in
            var failures: UInt32 = 0
            for i in 0..<Swift.max(0, b.count - 1) { failures |= isValid(b[i], b[i + 1]) ? 0 : 1 }
            return failures == 0
        }
    }
}

extension GraphColumn: Equatable where Element: Equatable {
    @usableFromInline package static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }
}

/// The memory of a column that holds its own elements.
@usableFromInline final class ColumnBuffer<Element: BitwiseCopyable> {
    let elements: UnsafeMutableBufferPointer<Element>

    /// `count` elements' memory, to be initialized by the column (its elements are bitwise
    /// copyable, so nothing needs deinitializing).
    init(count: Int) { elements = .allocate(capacity: count) }

    deinit { elements.deallocate() }
}
