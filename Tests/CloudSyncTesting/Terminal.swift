public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// cloudsync run with a pseudo-terminal as its standard error (and input), as in a person's
/// terminal: `isatty` is true, the window has a size, and what it draws is read back.
public final class TerminalRun {
    public let process = Process()
    private let master: Int32
    private var output = Data()

    /// - Parameters:
    ///   - columns: the terminal's width.
    ///   - stdinIsTerminal: standard input is the terminal too (else /dev/null).
    public init(_ arguments: [String], columns: Int = 80, stdinIsTerminal: Bool = false, stdout: FileHandle? = nil) throws {
        // posix_openpt and friends are not in Swift's Glibc module: the same through /dev/ptmx and
        // the Linux ioctls (TIOCSPTLCK unlocks the pair, TIOCGPTN gives its number).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw POSIXError(.ENOTTY)
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.standardError = terminal
        process.standardInput = stdinIsTerminal ? terminal : FileHandle.nullDevice
        process.standardOutput = stdout ?? FileHandle.nullDevice
        try process.run()
        try terminal.close()
    }

    deinit { close(master) }

    /// Waits for the process (at most `timeout` seconds, then kills it) and returns all it drew.
    public func finish(timeout: Double = 60) -> (status: Int32, screen: String) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { drain(wait: 50) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        drain(wait: 50)
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Reads what the terminal received so far.
    public func drain(wait milliseconds: Int32) {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while poll(&descriptor, 1, milliseconds) > 0 {
            let n = read(master, &buffer, buffer.count)
            guard n > 0 else { return }
            output.append(contentsOf: buffer[0..<n])
        }
    }

    public var screen: String { String(decoding: output, as: UTF8.self) }
}

/// A child whose standard input is a pipe that delivers some bytes and then stalls (the writer
/// keeps it open and writes nothing more), as a stalled download piped into cloudsync.
public final class StalledInput {
    public let process = Process()
    public let stderr = Pipe()
    private let input = Pipe()

    public init(_ arguments: [String], first bytes: Data, stdout: FileHandle = FileHandle.nullDevice) throws {
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        input.fileHandleForWriting.write(bytes)
    }

    /// Sends `signal` and returns the exit status, the seconds it took to exit, and stderr.
    public func interrupt(with signal: Int32) -> (status: Int32, seconds: Double, stderr: String) {
        let started = Date()
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let seconds = Date().timeIntervalSince(started)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, seconds, text)
    }
}
