#include "textflag.h"

// func senderTramp()
//
// A SA_SIGINFO handler the kernel calls with DI = signo, SI = *siginfo_t,
// DX = *ucontext: it records si_pid (offset 16) and si_code (offset 8) of
// the signal, then jumps to the handler that was installed before it (the
// Go runtime's), with every argument register untouched.
TEXT ·senderTramp(SB),NOSPLIT|NOFRAME,$0
	MOVL	16(SI), AX
	LEAQ	·senderPID(SB), CX
	MOVL	AX, (CX)(DI*4)
	MOVL	8(SI), AX
	LEAQ	·senderCode(SB), CX
	MOVL	AX, (CX)(DI*4)
	LEAQ	·senderFwd(SB), CX
	MOVQ	(CX)(DI*8), AX
	JMP	AX

// func senderTrampAddr() uintptr
TEXT ·senderTrampAddr(SB),NOSPLIT,$0-8
	LEAQ	·senderTramp(SB), AX
	MOVQ	AX, ret+0(FP)
	RET
