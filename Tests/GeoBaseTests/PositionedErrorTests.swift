import GeoBase
import Testing

/// `PositionedError`: the place printed as compilers print it (`LINE:COLUMN: CODE: MESSAGE`),
/// and two errors equal only when code, message, place and underlying error all are.
struct PositionedErrorTests {
    enum Domain {}
    typealias TestError = PositionedError<Domain, String>

    @Test func description_isLineColumnCodeMessage() {
        let error = TestError(ErrorCode("truncated"), "the input ends inside <trkpt>", line: 12, column: 5, offset: 301)
        #expect(error.description == "12:5: truncated: the input ends inside <trkpt>")
        #expect(error.underlying == nil)
    }

    @Test func equality_comparesEveryField() {
        let base = TestError(ErrorCode("I/O error"), "reading failed", line: 1, column: 1, offset: 0, underlying: "EIO")
        var otherOffset = base
        otherOffset.offset = 1
        var otherUnderlying = base
        otherUnderlying.underlying = "ENOSPC"
        var otherCode = base
        otherCode.code = ErrorCode("truncated")
        #expect(base == TestError(ErrorCode("I/O error"), "reading failed", line: 1, column: 1, offset: 0, underlying: "EIO"))
        #expect(Set([base, otherOffset, otherUnderlying, otherCode, base]).count == 4)
    }
}
