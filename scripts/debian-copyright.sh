#!/usr/bin/env bash
# Writes the Debian copyright file (machine-readable format 1.0) of the cloudsync package on stdout:
# CloudSync itself, the Swift runtime and Foundation, and every Swift package whose code is linked
# into the binary built in the scratch folder $1 (read from the link's file list, so a package used
# only by the tests, such as ZIPFoundation, is not listed). Apache-2.0 texts are referred to in
# /usr/share/common-licenses; any other licence is copied in full, and so are the NOTICE files.
set -euo pipefail
scratch=$(realpath "${1:?usage: debian-copyright.sh SCRATCH_PATH}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."    # Package.resolved is at the package's root
linked=$(find "$scratch" -path '*release/cloudsync.product/Objects.LinkFileList' -print -quit)
[[ -n $linked ]] || { echo "debian-copyright: no release link of cloudsync in $scratch" >&2; exit 1; }
modules=$(sed 's#.*/\([^/]*\)\.build/.*#\1#' "$linked" | sort -u)

as_field_text() {   # a file as the continuation lines of a field: indented, blank lines as " ."
    sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$@"
}

licence_of() {   # the short name of the licence in file $1
    if grep -q "Apache License" "$1"; then echo "Apache-2.0"
    elif grep -q "Permission is hereby granted" "$1"; then echo "Expat"
    else echo "other"; fi
}

[[ -f Package.resolved ]] || { echo "debian-copyright: no Package.resolved (build first)" >&2; exit 1; }
location_of() {   # the URL Package.resolved gives for package identity $1
    python3 -c 'import json, sys
pins = json.load(open("Package.resolved"))["pins"]
print(next((p["location"] for p in pins if p["identity"] == sys.argv[1].lower()), sys.argv[1]))' "$1"
}

cat <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: cloudsync
Comment: /usr/bin/cloudsync is one binary with the Swift runtime, Foundation and the Swift packages
 below linked into it statically. The C libraries it uses (libxml2, SQLite, zlib, libqrencode,
 libcurl) are separate Debian packages with their own copyright files.

Files: *
Copyright: 2026 CloudSync developers
License: none-chosen
 CloudSync has not chosen a licence yet; until it does, all rights are reserved by its developers.

Files: swift-runtime/*
Comment: the Swift runtime, Foundation and Dispatch of the Swift toolchain, linked statically
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
 On Debian systems the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.
 Runtime Library Exception: as an exception, if you use this Software to compile your source code
 and portions of this Software are embedded into the binary product as a result, you may
 redistribute such product without providing attribution as would otherwise be required by
 Sections 4(a), 4(b) and 4(d) of the License.
EOF

for package in "$scratch"/checkouts/*/; do
    name=$(basename "$package")
    used=no
    for source in "$package"Sources/*/; do
        grep -qx "$(basename "$source")" <<< "$modules" && { used=yes; break; }
    done
    [[ $used == yes ]] || continue
    licence_file=$(find "$package" -maxdepth 1 -iname 'LICENSE*' -print -quit)
    [[ -n $licence_file ]] || { echo "debian-copyright: $name has no LICENSE file" >&2; exit 1; }
    licence=$(licence_of "$licence_file")
    echo
    echo "Files: checkouts/$name/*"
    echo "Copyright: the $name authors (see its NOTICE below, where it has one)"
    if [[ $licence == Apache-2.0 ]]; then
        echo "License: Apache-2.0"
        echo " On Debian systems the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0."
    else
        echo "License: $licence"
        as_field_text "$licence_file"
    fi
    echo "Comment: the Swift package $(location_of "$name"), linked statically."
    notice=$(find "$package" -maxdepth 1 -iname 'NOTICE*' -print -quit)
    if [[ -n $notice ]]; then
        echo " Its NOTICE:"
        as_field_text "$notice"
    fi
    # C code vendored in a linked module, under its own licence.
    for source in "$package"Sources/*/; do
        module=$(basename "$source")
        grep -qx "$module" <<< "$modules" || continue
        vendored=$(find "$source" -maxdepth 2 -iname 'LICENSE*' -print -quit)
        if [[ -n $vendored ]]; then
            echo
            echo "Files: checkouts/$name/Sources/$module/*"
            echo "Copyright: see below"
            echo "License: $(licence_of "$vendored")"
            as_field_text "$vendored"
        elif [[ $module == C*BoringSSL ]]; then
            # BoringSSL ships no LICENSE file into these packages; its files carry their licence in a
            # header: Apache-2.0, ISC, or the OpenSSL and SSLeay licences, whose binary-redistribution
            # clause asks for the notice. The SSLeay header is copied from the source itself.
            header=$(find "$source" -name 'mem.c*' -print -quit)
            [[ -n $header ]] || { echo "debian-copyright: no licence found for $name's $module" >&2; exit 1; }
            echo
            echo "Files: checkouts/$name/Sources/$module/*"
            echo "Copyright: Eric Young, The OpenSSL Project, Google Inc. and the BoringSSL authors"
            echo "License: BoringSSL (Apache-2.0, ISC, OpenSSL and SSLeay, per file)"
            echo " BoringSSL (https://boringssl.googlesource.com/boringssl), vendored by $name."
            echo " Each source file's header names its licence. The SSLeay licence of the oldest files:"
            awk 'NR == 1, /\*\//' "$header" | as_field_text
        fi
    done
done
