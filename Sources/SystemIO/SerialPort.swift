import Platform

/// Serial devices (a GNSS receiver on `/dev/ttyUSB0`) configured with termios.
public enum SerialPort {
    /// The baud rates `openDevice(_:baud:)` accepts.
    public static let supportedBaudRates = [4800, 9600, 19200, 38400, 57600, 115200, 230400]

    /// Opens a serial device read-write, raw (8N1, no flow control) at `baud`, close-on-exec and
    /// without becoming the controlling terminal. Something that is not a terminal (a pipe or
    /// file standing in for a device) is opened as it is.
    /// - Throws: `SystemIOError` `.invalidArgument` for an unsupported baud rate, `.notFound`,
    ///   `.permissionDenied` …
    public static func openDevice(_ path: String, baud: Int) throws(SystemIOError) -> FileDescriptor {
        guard let speed = speed(baud) else {
            throw SystemIOError(.invalidArgument, "unsupported baud rate \(baud); use one of \(supportedBaudRates)")
        }
        let fd = try FileDescriptor(opening: path, .readWrite, options: .noControllingTerminal)
        var tio = termios()
        if tcgetattr(fd.rawValue, &tio) == 0 {
            cfmakeraw(&tio)
            cfsetispeed(&tio, speed)
            cfsetospeed(&tio, speed)
            tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
            tcsetattr(fd.rawValue, TCSANOW, &tio)
        }
        return fd
    }

    private static func speed(_ baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        default: nil
        }
    }
}
