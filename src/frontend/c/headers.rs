//! The standard headers a program may `#include` without a compiler on the
//! machine: for each, the declarations and macros arrax knows (what the
//! C front end reads; the rest of a real header is left out, so a name a
//! program uses from it and arrax does not know is an undeclared
//! identifier where it is used).

use super::DataModel;

/// The text of a standard header under the data model, or `None` for a
/// header arrax does not know.
pub fn text(name: &str, model: DataModel) -> Option<String> {
    let lp64 = model == DataModel::Lp64;
    let (size_t, ptrdiff_t) = if lp64 { ("unsigned long", "long") } else { ("unsigned int", "int") };
    let common = format!("typedef {size_t} size_t;\ntypedef {ptrdiff_t} ptrdiff_t;\n#ifndef NULL\n#define NULL ((void *)0)\n#endif\n");
    Some(match name {
        "stddef.h" => common,
        "stdlib.h" => format!(
            "{common}void *malloc(size_t);\nvoid *calloc(size_t, size_t);\nvoid *realloc(void *, size_t);\n\
             void free(void *);\nvoid abort(void);\nvoid exit(int);\nint abs(int);\nlong labs(long);\n\
             #define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n#define RAND_MAX 2147483647\n"
        ),
        "alloca.h" => format!("{common}void *alloca(size_t);\n"),
        "string.h" | "strings.h" => common,
        "stdio.h" => format!("{common}#define EOF (-1)\n"),
        "assert.h" => "void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
                       #ifdef NDEBUG\n#define assert(e) ((void)0)\n#endif\n"
            .to_string(),
        "stdbool.h" => "#define bool _Bool\n#define true 1\n#define false 0\n#define __bool_true_false_are_defined 1\n".to_string(),
        "limits.h" => limits(lp64),
        "stdint.h" | "inttypes.h" => stdint(lp64, size_t, ptrdiff_t),
        "stdarg.h" | "math.h" | "errno.h" | "time.h" | "signal.h" | "unistd.h" | "pthread.h" | "float.h" => String::new(),
        _ => return None,
    })
}

/// `<limits.h>`.
fn limits(lp64: bool) -> String {
    let (lmin, lmax, ulmax) = if lp64 {
        ("(-9223372036854775807L - 1)", "9223372036854775807L", "18446744073709551615UL")
    } else {
        ("(-2147483647L - 1)", "2147483647L", "4294967295UL")
    };
    format!(
        "#define CHAR_BIT 8\n#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n\
         #define CHAR_MIN (-128)\n#define CHAR_MAX 127\n#define SHRT_MIN (-32768)\n#define SHRT_MAX 32767\n\
         #define USHRT_MAX 65535\n#define INT_MIN (-2147483647 - 1)\n#define INT_MAX 2147483647\n\
         #define UINT_MAX 4294967295U\n#define LONG_MIN {lmin}\n#define LONG_MAX {lmax}\n#define ULONG_MAX {ulmax}\n\
         #define LLONG_MIN (-9223372036854775807LL - 1)\n#define LLONG_MAX 9223372036854775807LL\n\
         #define ULLONG_MAX 18446744073709551615ULL\n"
    )
}

/// `<stdint.h>` (and `<inttypes.h>`).
fn stdint(lp64: bool, size_t: &str, ptrdiff_t: &str) -> String {
    let i64t = if lp64 { "long" } else { "long long" };
    let (pmax, smax) = if lp64 { ("9223372036854775807L", "18446744073709551615UL") } else { ("2147483647", "4294967295U") };
    format!(
        "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef {i64t} int64_t;\n\
         typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n\
         typedef unsigned {i64t} uint64_t;\ntypedef {ptrdiff_t} intptr_t;\ntypedef {size_t} uintptr_t;\n\
         typedef {i64t} intmax_t;\ntypedef unsigned {i64t} uintmax_t;\n\
         #define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n#define INT16_MIN (-32768)\n\
         #define INT16_MAX 32767\n#define UINT16_MAX 65535\n#define INT32_MIN (-2147483647 - 1)\n\
         #define INT32_MAX 2147483647\n#define UINT32_MAX 4294967295U\n#define INT64_MIN (-9223372036854775807LL - 1)\n\
         #define INT64_MAX 9223372036854775807LL\n#define UINT64_MAX 18446744073709551615ULL\n\
         #define SIZE_MAX {smax}\n#define PTRDIFF_MAX {pmax}\n"
    )
}

/// The macros every translation unit starts with (those of gcc that
/// programs test, under the data model).
pub fn predefined(model: DataModel) -> String {
    let lp64 = model == DataModel::Lp64;
    let (long, ptr, arch) = if lp64 { (8, 8, "__LP64__ 1\n#define _LP64 1\n#define __x86_64__") } else { (4, 4, "__ILP32__ 1\n#define __i386__") };
    format!(
        "#define __STDC__ 1\n#define __STDC_VERSION__ 201112L\n#define __STDC_HOSTED__ 1\n#define __GNUC__ 4\n\
         #define __CHAR_BIT__ 8\n#define __SIZEOF_INT__ 4\n#define __SIZEOF_LONG__ {long}\n\
         #define __SIZEOF_LONG_LONG__ 8\n#define __SIZEOF_POINTER__ {ptr}\n#define __INT_MAX__ 2147483647\n\
         #define {arch} 1\n"
    )
}
