import CloudSyncFuzzing

@main enum FuzzExport {
    static func main() {
        FuzzMain.run(fuzzOneInput, replaying: FuzzTargets.exportBytes)
    }
}

/// libFuzzer's callback (its archive, linked whole by -sanitize=fuzzer, also wants it by this name).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTargets.exportBytes(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
