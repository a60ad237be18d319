/// Output collected in a fixed buffer and written with `write(2)` when full or flushed: the
/// command-line tool's standard output. Also a `TextOutputStream` whose `_writeASCII` takes
/// the digits `Double.write(to:)` produces without building a `String`.
///
/// Writing never throws, so it can serve `print(_:to:)` and `TextOutputStream`: the first
/// write error is kept in `error` and later output is dropped (C stdio's `ferror`).
public struct BufferedWriter: TextOutputStream {
    /// The descriptor written to; the writer does not close it.
    public let descriptor: FileDescriptor
    /// The first write error, after which output is dropped; nil while all is well.
    public private(set) var error: SystemIOError?
    @usableFromInline let storage: Storage
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    @usableFromInline var count = 0

    /// Owns the buffer, so copies of the writer never free it twice.
    @usableFromInline final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { base = .allocate(capacity: capacity) }
        deinit { base.deallocate() }
    }

    /// - Parameter capacity: buffer size, bytes (at least 64).
    public init(_ descriptor: FileDescriptor, capacity: Int = 1 << 16) {
        self.descriptor = descriptor
        self.capacity = max(capacity, 64)
        storage = Storage(capacity: self.capacity)
        base = storage.base
    }

    /// Writes out what is buffered (dropped after an earlier error).
    public mutating func flush() {
        defer { count = 0 }
        guard error == nil, count > 0 else { return }
        do {
            try descriptor.writeAll(UnsafeRawBufferPointer(start: base, count: count))
        } catch let failure {
            error = failure
        }
    }

    /// Writes `bytes` past the buffer (which is empty), unless an error came first.
    @usableFromInline
    mutating func writeThrough(_ bytes: UnsafeRawBufferPointer) {
        guard error == nil, bytes.count > 0 else { return }
        do { try descriptor.writeAll(bytes) } catch let failure { error = failure }
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(byte: UInt8) {
        if count == capacity { flush() }
        base[count] = byte
        count += 1
    }

    /// Appends the shortest decimal that reads back as the same double (Swift's `description`).
    @inlinable @inline(__always)
    public mutating func append(_ value: Double) {
        if count > capacity - 64 { flush() }
        value.write(to: &self)
    }

    @inlinable
    public mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        if count + buffer.count > capacity { flush() }
        guard buffer.count <= capacity, let source = buffer.baseAddress else {
            // Longer than the whole buffer: straight through.
            writeThrough(UnsafeRawBufferPointer(buffer))
            return
        }
        (base + count).update(from: source, count: buffer.count)
        count += buffer.count
    }

    /// Appends `bytes`.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        _writeASCII(bytes.bindMemory(to: UInt8.self))
    }

    /// Appends the UTF-8 of `string`.
    public mutating func write(_ string: String) {
        var s = string
        s.withUTF8 { _writeASCII($0) }
    }
}
