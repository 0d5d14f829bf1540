import CloudSyncModel
import Foundation

/// Progress on stderr, only when stderr is a terminal: one line rewritten in place, never wider
/// than the terminal (a wrapped line could not be rewritten and would leave fragments), with the
/// percentage and an ETA when the size of the work is known.
struct ProgressLine {
    let enabled = isatty(STDERR_FILENO) == 1

    func show(_ progress: ReaderProgress) {
        guard enabled else { return }
        var parts: [String] = []
        var eta: Double?
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.bytes) / Double(total))
            parts.append(String(format: "%3.0f%%", fraction * 100))
            if fraction > 0.01 { eta = progress.seconds * (1 - fraction) / fraction }
        }
        parts.append("\(Self.grouped(progress.metrics)) metrics")
        if progress.seconds > 0 { parts.append("\(Self.grouped(Int(Double(progress.metrics) / progress.seconds)))/s") }
        if let eta { parts.append("ETA \(Self.duration(eta))") }
        write(parts)
    }

    func showUpload(done: Int, total: Int, seconds: Double) {
        guard enabled else { return }
        var parts = [String(format: "%3.0f%%", total > 0 ? Double(done) * 100 / Double(total) : 100),
                     "\(Self.grouped(done)) of \(Self.grouped(total)) metrics"]
        let rate = seconds > 0 ? Double(done) / seconds : 0
        if rate > 0 {
            parts.append("\(Self.grouped(Int(rate)))/s")
            parts.append("ETA \(Self.duration(Double(total - done) / rate))")
        }
        write(parts)
    }

    /// How a run shows its progress here and hears Ctrl-C and SIGTERM.
    func control() -> RunControl {
        let line = self
        var control = RunControl(shouldStop: StopSignal.installed())
        if enabled { control.onProgress = { line.show($0) } }
        return control
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Writes the parts that fit in the terminal's width, dropping from the end.
    private func write(_ parts: [String]) {
        let width = Self.terminalColumns() - 1
        var line = ""
        for part in parts {
            let candidate = line.isEmpty ? part : line + "  " + part
            guard candidate.count <= width else { break }
            line = candidate
        }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// 1234567 → "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (i, character) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }

    /// 75 → "1:15", 3700 → "1:01:40".
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }
}
