import CloudSyncModel
import Foundation

/// Every write of data to standard output, checked: a full disk or a closed pipe is the error
/// "cannot write to standard output: No space left on device" and exit status 74, never a trap
/// (`FileHandle.write(_:)` traps on a failed write) nor output silently lost.
enum StandardOutput {
    static func write(_ data: Data) throws {
        let output = OutputFile.standardOutput()
        data.withUnsafeBytes { output.buffer.append($0.bindMemory(to: UInt8.self)) }
        do { try output.finish() } catch {
            printError("\(error)")
            throw ExitStatus.ioError
        }
    }

    static func write(_ text: String) throws { try write(Data(text.utf8)) }
}
