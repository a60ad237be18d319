import NIOCore
import PostgresNIO

/// The elements of a one-dimensional PostgreSQL array in binary form, read one by one.
///
/// The layout is `array_send`'s (src/backend/utils/adt/arrayfuncs.c): the dimension count, a
/// has-NULLs flag and the element type's OID (three Int32), each dimension's length and lower
/// bound (two Int32), then each element as an Int32 length (-1 for NULL) and its bytes, all big
/// endian. postgres-nio's `[Double]` decoding is generic and not specialised across modules: it
/// looked up generic metadata for every element (`_swift_getGenericMetadata`, 6.5 % of a
/// device-day read's samples in perf), and it cannot hold NULLs.
struct PostgresArrayColumn {
    /// The elements' part of the array, copied out of the row once and read by index:
    /// `ByteBuffer.getInteger` was 13 % of an idle device-day read's server samples (perf), and
    /// reading from an array took the read's p50 from 148, 146 to 132, 138 ms (alternating runs).
    private let bytes: [UInt8]
    private var offset = 0
    /// Elements in the array; 0 for an empty array or a NULL cell.
    let count: Int

    /// The array in `cell`, whose elements must be of `elementType`.
    init(_ cell: PostgresCell, of elementType: PostgresDataType) throws {
        guard var buffer = cell.bytes else {
            (bytes, count) = ([], 0)
            return
        }
        guard cell.format == .binary,
              let (dimensions, _, type) = buffer.readMultipleIntegers(endianness: .big, as: (Int32, Int32, UInt32).self),
              PostgresDataType(type) == elementType, dimensions == 0 || dimensions == 1
        else { throw PostgresDecodingError.Code.typeMismatch }
        if dimensions == 0 {
            count = 0
        } else {
            guard let (length, _) = buffer.readMultipleIntegers(endianness: .big, as: (Int32, Int32).self), length >= 0 else {
                throw PostgresDecodingError.Code.failure
            }
            count = Int(length)
        }
        bytes = Array(buffer.readableBytesView)
    }

    /// The big-endian integer at `offset`, which moves past it; nil when the bytes end first.
    private mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { return nil }
        let value = bytes.withUnsafeBytes { T(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        offset += size
        return value
    }

    /// The next element's length, nil for NULL.
    private mutating func next(expecting size: Int32?) throws -> Int32? {
        guard let length = read(Int32.self), length >= -1, length <= bytes.count - offset,
              length == -1 || size == nil || length == size
        else { throw PostgresDecodingError.Code.failure }
        return length == -1 ? nil : length
    }

    /// The next `float8` element, nil for NULL.
    mutating func nextDouble() throws -> Double? {
        guard try next(expecting: 8) != nil, let bits = read(UInt64.self) else { return nil }
        return Double(bitPattern: bits)
    }

    /// The next `int8` element, nil for NULL.
    mutating func nextInt64() throws -> Int64? {
        guard try next(expecting: 8) != nil else { return nil }
        return read(Int64.self)
    }

    /// The next `text` element, nil for NULL.
    mutating func nextString() throws -> String? {
        guard let length = try next(expecting: nil) else { return nil }
        defer { offset += Int(length) }
        return String(decoding: bytes[offset..<offset + Int(length)], as: UTF8.self)
    }
}
