//! C programs compiled (static: no dynamic loading in their measured start-up) once per test run
//! into a shared temp dir, or once into a directory prepared beforehand.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const PROGRAMS: &[(&str, &str)] = &[
    (
        "dispositions",
        r#"
#include <signal.h>
#include <stdio.h>
int main(void){ int odd = 0; for (int s = 1; s < 32; s++) { struct sigaction a;
 if (s == SIGKILL || s == SIGSTOP || sigaction(s, 0, &a) != 0) continue;
 if (a.sa_handler != SIG_DFL) { printf("%d ", s); odd++; } } return odd; }
"#,
    ),
    (
        "aplusb",
        r#"
#include <stdio.h>
int main(void){ long long a,b; if(scanf("%lld %lld",&a,&b)!=2) return 3; printf("%lld\n",a+b); return 0; }
"#,
    ),
    (
        "busy",
        r#"
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int c, char**v){ long ms = c>1? atol(v[1]) : -1; struct timespec t; volatile unsigned long x=0;
 for(;;){ for(int i=0;i<100000;i++) x+=i; clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);
   if(ms>=0 && t.tv_sec*1000+t.tv_nsec/1000000>=ms){ if(c>2) for(;;) pause(); return 0; } } }
"#,
    ),
    (
        "leaver",
        r#"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <unistd.h>
int main(int c, char**v){
 if(c>1 && !strcmp(v[1],"leave")){
   int fd = open("/tmp/mark", O_CREAT|O_WRONLY, 0644); if(fd<0) return 2; close(fd);
   if(shmget(0x5eed, 4096, IPC_CREAT|0666) < 0) return 3;
   if(msgget(0x5eed, IPC_CREAT|0666) < 0) return 4;
   int mnt = c>2 && access(v[2], F_OK) == 0;
   printf("pid=%d mount=%d\n", getpid(), mnt); return 0; }
 int tmp = access("/tmp/mark", F_OK) == 0;
 int shm = shmget(0x5eed, 0, 0) >= 0;
 int msg = msgget(0x5eed, 0) >= 0;
 int mnt = c>2 && access(v[2], F_OK) == 0;
 printf("pid=%d tmp=%d shm=%d msg=%d mount=%d\n", getpid(), tmp, shm, msg, mnt);
 return 0; }
"#,
    ),
    (
        "numbers",
        r#"
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int c, char**v){
 if(c>1 && !strcmp(v[1],"hide")){
   int fd = open("/tmp", O_TMPFILE|O_RDWR, 0600); if(fd<0) return 2; close(fd);
   int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600); if(id<0) return 3;
   return shmctl(id, IPC_RMID, 0) < 0 ? 4 : 0; }
 struct stat st;
 int fd = open("/tmp/probe", O_CREAT|O_EXCL|O_WRONLY, 0600);
 if(fd<0 || fstat(fd, &st)) { printf("leftover /tmp/probe\n"); return 0; }
 int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600); if(id<0) return 5;
 printf("ino=%lu shm=%d\n", (unsigned long)st.st_ino, id); return 0; }
"#,
    ),
    (
        "persona",
        r#"
#include <stdio.h>
#include <stdlib.h>
#include <sys/personality.h>
int main(int c, char**v){ unsigned long want = c>1 ? strtoul(v[1],0,0) : 0;
 int r = personality(want); printf("%s\n", r == -1 ? "refused" : "allowed"); return 0; }
"#,
    ),
    (
        "sleeper",
        r#"
#include <unistd.h>
int main(void){ for(;;) pause(); }
"#,
    ),
    (
        "touch",
        r#"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
int main(int c, char**v){ long mb = atol(v[1]); char*p = malloc(mb<<20); if(!p) return 2; memset(p,1,mb<<20);
 printf("%d\n", p[(mb<<20)-1]); return 0; }
"#,
    ),
    (
        "exitcode",
        r#"
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
int main(int c, char**v){ if(c>2 && !strcmp(v[1],"sig")) { kill(getpid(), atoi(v[2])); pause(); } return atoi(v[1]); }
"#,
    ),
    (
        "forkbomb",
        r#"
#include <unistd.h>
int main(void){ for(;;) fork(); }
"#,
    ),
    (
        "writer",
        r#"
#include <stdio.h>
#include <stdlib.h>
int main(int c, char**v){ long n = atol(v[1]); static char buf[65536]; for(int i=0;i<65536;i++) buf[i]='x';
 while(n>0){ long k = n>65536?65536:n; if(fwrite(buf,1,k,stdout)!=(size_t)k) return 4; n-=k; } return 0; }
"#,
    ),
    (
        "tcp",
        r#"
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int c, char**v){ int s = socket(AF_INET, SOCK_STREAM, 0); if(s<0){ perror("socket"); return 1; }
 struct sockaddr_in a = {0}; a.sin_family=AF_INET; a.sin_port=htons(atoi(v[2])); inet_pton(AF_INET, v[1], &a.sin_addr);
 if(connect(s,(struct sockaddr*)&a,sizeof a)<0){ perror("connect"); return 1; } puts("connected"); return 0; }
"#,
    ),
    (
        "catfile",
        r#"
#include <stdio.h>
int main(int c, char**v){ FILE*f=fopen(v[1],"r"); if(!f){ perror("fopen"); return 1; } int ch; while((ch=fgetc(f))!=EOF) putchar(ch); return 0; }
"#,
    ),
    (
        "writefile",
        r#"
#include <stdio.h>
int main(int c, char**v){ FILE*f=fopen(v[1],"w"); if(!f){ perror("fopen"); return 1; } fputs("pwned\n",f); if(fclose(f)){ perror("fclose"); return 1; } return 0; }
"#,
    ),
    (
        "scratch",
        r#"
#include <stdio.h>
#include <stdlib.h>
int main(int c, char**v){ long n = atol(v[1]); static char buf[65536]; for(int i=0;i<65536;i++) buf[i]='s';
 FILE*f=fopen("scratch.bin","w"); if(!f){ perror("fopen"); return 1; }
 while(n>0){ long k = n>65536?65536:n; if(fwrite(buf,1,k,f)!=(size_t)k){ perror("fwrite"); return 4; } n-=k; }
 if(fclose(f)){ perror("fclose"); return 5; } printf("42\n"); return 0; }
"#,
    ),
    (
        "efbig",
        r#"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
int main(int c, char**v){ long n = atol(v[1]); static char buf[65536]; memset(buf,'e',sizeof buf);
 signal(SIGXFSZ, SIG_IGN); int fd = open("big.bin", O_WRONLY|O_CREAT|O_TRUNC, 0644); if(fd<0) return 1;
 while(n>0){ long k = n>65536?65536:n; ssize_t w = write(fd,buf,k);
   if(w<0){ printf("write failed: %s\n", strerror(errno)); return 0; } n-=w; }
 close(fd); printf("done\n"); return 0; }
"#,
    ),
    (
        "daemon",
        r#"
#include <unistd.h>
#include <stdio.h>
int main(void){ if(fork()==0){ setsid(); if(fork()==0){ for(;;) { FILE*f=fopen("alive","w"); if(f){fputs("x",f); fclose(f);} sleep(1);} } _exit(0);}
 while(access("alive", F_OK)) usleep(1000); return 0; }
"#,
    ),
    (
        "killall",
        r#"
#include <signal.h>
#include <stdio.h>
int main(void){ int r = kill(-1, SIGKILL); printf("kill=%d\n", r); return 0; }
"#,
    ),
    (
        "syscalls",
        r#"
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <errno.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
int main(void){ char p[64]={0};
 long r = syscall(SYS_io_uring_setup, 4, p); printf("io_uring_setup=%ld errno=%d\n", r, r<0?errno:0);
 r = syscall(SYS_keyctl, 0, 0, 0, 0, 0); printf("keyctl=%ld errno=%d\n", r, r<0?errno:0);
 r = unshare(CLONE_NEWUSER); printf("unshare=%ld errno=%d\n", r, r<0?errno:0);
 r = socket(40, SOCK_STREAM, 0); printf("vsock=%ld errno=%d\n", r, r<0?errno:0);
 r = syscall(SYS_ptrace, 0, 0, 0, 0); printf("ptrace=%ld errno=%d\n", r, r<0?errno:0);
 return 0; }
"#,
    ),
    (
        "closeout",
        r#"
#include <unistd.h>
#include <stdio.h>
int main(void){ close(1); close(2); int r = write(1, "x", 1); return r < 0 ? 0 : 1; }
"#,
    ),
    (
        "argsize",
        r#"
#include <stdio.h>
#include <string.h>
extern char **environ;
int main(int c, char**v){ size_t a=0,e=0,n=0; for(int i=0;i<c;i++) a+=strlen(v[i]); for(char**p=environ;*p;p++){ e+=strlen(*p); n++; }
 printf("%d %zu %zu %zu\n", c, a, n, e); for(char**p=environ;*p;p++) if(!strncmp(*p,"ONLINE_JUDGE=",13)||!strncmp(*p,"PATH=",5)) printf("%s\n",*p); return 0; }
"#,
    ),
    (
        "planter",
        r#"
#include <unistd.h>
int main(void){ unlink("answer.txt"); return symlink("/etc/passwd", "answer.txt") ? 1 : 0; }
"#,
    ),
    (
        "whoami",
        r#"
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
int main(void){ printf("uid=%d gid=%d pid=%d nnp=%d\n", getuid(), getgid(), getpid(), prctl(PR_GET_NO_NEW_PRIVS,0,0,0,0));
 char h[64]; gethostname(h, sizeof h); printf("host=%s\n", h); return 0; }
"#,
    ),
    (
        "threads",
        r#"
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
void* f(void*a){ sleep(1); return a; }
int main(int c, char**v){ int n = atoi(v[1]), ok=0; pthread_t t[256]; for(int i=0;i<n;i++) if(pthread_create(&t[i],0,f,0)==0) ok++; printf("%d\n", ok); return 0; }
"#,
    ),
];

/// The directory of the compiled fixtures: `VERDICT_TEST_FIXTURES` when set (each program
/// compiled there unless its binary and an identical copy of its source are already there, so a
/// directory prepared beforehand serves a machine where gcc is slow, such as the cgroup-v2
/// guest of `scripts/cgroup2-vm.sh`), else a temp dir of this run.
pub fn dir() -> &'static Path {
    static DIR: OnceLock<(Option<tempfile::TempDir>, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| match std::env::var_os("VERDICT_TEST_FIXTURES") {
        Some(d) => {
            let d = PathBuf::from(d);
            std::fs::create_dir_all(&d).expect("create VERDICT_TEST_FIXTURES");
            compile_all(&d);
            (None, d)
        }
        None => {
            let d = tempfile::Builder::new()
                .prefix("verdict-fixtures-")
                .tempdir()
                .expect("tempdir");
            compile_all(d.path());
            let path = d.path().to_owned();
            (Some(d), path)
        }
    })
    .1
}

/// The flags `name` is compiled with.
fn flags(name: &str) -> &'static [&'static str] {
    match name {
        "threads" => &["-O1", "-static", "-pthread", "-include", "stdlib.h"],
        _ => &["-O1", "-static"],
    }
}

/// What is kept beside a compiled fixture: its flags, then its source.
fn recorded_source(name: &str, src: &str) -> String {
    format!("// gcc {}\n{src}", flags(name).join(" "))
}

/// Compiles every program missing or stale in `d` and makes `d` readable by the box users.
fn compile_all(d: &Path) {
    std::thread::scope(|s| {
        for (name, src) in PROGRAMS {
            let c = d.join(format!("{name}.c"));
            let text = recorded_source(name, src);
            if d.join(name).is_file() && std::fs::read(&c).is_ok_and(|old| old == text.as_bytes()) {
                continue;
            }
            s.spawn(move || {
                // The binary first, its source last: a source there means its binary is complete.
                let _ = std::fs::remove_file(&c);
                let tmp = d.join(format!("{name}.tmp.c"));
                std::fs::write(&tmp, &text).expect("write source");
                let out = Command::new("gcc")
                    .args(flags(name))
                    .arg("-o")
                    .arg(d.join(name))
                    .arg(&tmp)
                    .output()
                    .expect("run gcc");
                assert!(
                    out.status.success(),
                    "gcc {name}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                std::fs::rename(&tmp, &c).expect("rename source");
            });
        }
    });
    // Readable by the box users (a prepared directory may be read-only and already so).
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(d)
        .expect("stat fixtures")
        .permissions()
        .mode();
    if mode & 0o755 != 0o755 {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

#[test]
fn every_fixture_is_compiled_and_current() {
    let d = dir();
    for (name, src) in PROGRAMS {
        assert!(d.join(name).is_file(), "{name} missing in {}", d.display());
        let c = std::fs::read_to_string(d.join(format!("{name}.c"))).expect("fixture source");
        assert_eq!(
            c,
            recorded_source(name, src),
            "{name} is stale in {}",
            d.display()
        );
    }
}

/// The path of one compiled fixture.
pub fn prog(name: &str) -> PathBuf {
    dir().join(name)
}
