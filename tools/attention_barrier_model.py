"""Random-schedule model of the target attention's barrier protocol
(lib/Conversion/ScToGPU/AttentionKernel.cpp, two consumers, K and V on
their own barriers): the producer thread, consumer 0 software-pipelined
(4 warps), consumer 1 pipelined or idle-draining (4 warps; with two active consumers their wgmma turns alternate on named
barriers 3 and 4), TMA completions
as asynchronous events, mbarriers with arrival counts, transaction bytes
and parity waits as PTX defines them. Runs many random interleavings and
reports a state where nothing can move before everyone is done (deadlock)
or a consumer reading a slot that does not hold the block it expects.
Hand-written from the kernel template: keep it in step when the protocol
changes. Lanes are not modelled (one agent per warp).

    python3 tools/attention_barrier_model.py [SEEDS]
"""
import random, sys

class Bar:
    def __init__(s, count): s.count=count; s.pending=count; s.tx=0; s.c=0
    def arrive(s):
        assert s.pending>0, "arrival past count"
        s.pending-=1; s.check()
    def expect(s, b): s.tx+=b
    def complete(s, b): s.tx-=b; assert s.tx>=0; s.check()
    def check(s):
        if s.pending==0 and s.tx==0: s.c+=1; s.pending=s.count
    def done(s, p): return (s.c & 1) != p

class Named:
    """bar.sync / bar.arrive on one named barrier of `count` threads; the
    agents here are warps, so a warpgroup's 4 warps each bring 32."""
    def __init__(s, count): s.count=count; s.arrived=0; s.gen=0
    def arrive(s):
        s.arrived+=32
        if s.arrived==s.count: s.arrived=0; s.gen+=1
    def sync(s):
        g=s.gen; s.arrive()
        while s.gen==g: yield

def run(nkb, S, idle1, seed):
    rng=random.Random(seed)
    turns = not idle1
    named={3:Named(256),4:Named(256)}
    full=[Bar(1) for _ in range(S)]; fullV=[Bar(1) for _ in range(S)]
    empty=[Bar(8) for _ in range(S)]; emptyV=[Bar(8) for _ in range(S)]
    slotK=[None]*S; slotV=[None]*S   # which block's data is in the slot
    readers={}
    tma=[]  # pending (bar, bytes, slotArray, slot, block)
    def producer():
        for t in range(nkb):
            ps=t%S; pep=((t//S)%2)^1
            while not empty[ps].done(pep): yield
            full[ps].expect(1); full[ps].arrive(); tma.append((full[ps],1,slotK,ps,t)); yield
            while not emptyV[ps].done(pep): yield
            fullV[ps].expect(1); fullV[ps].arrive(); tma.append((fullV[ps],1,slotV,ps,t)); yield
    def use(arr, s, blk, what):
        assert arr[s]==blk, "%s read slot %d expecting block %d, has %s"%(what,s,blk,arr[s])
    def pipelined(c):
        # c: the consumer (0 or 1). With turns, its wgmma phases wait on
        # named barrier 3 + c and hand over on 4 - c; consumer 0's first
        # turn needs no wait, consumer 1 does not hand back after its last.
        par=lambda j:(j//S)%2
        while not full[0].done(par(0)): yield
        if turns and c==1: yield from named[3+c].sync()
        use(slotK,0,0,"K"); yield
        if turns: named[4-c].arrive()
        empty[0].arrive(); yield
        for t in range(1,nkb):
            s=t%S
            while not full[s].done(par(t)): yield
            sp=(t-1)%S
            while not fullV[sp].done(par(t-1)): yield
            if turns: yield from named[3+c].sync()
            use(slotK,s,t,"K"); use(slotV,sp,t-1,"V"); yield
            if turns: named[4-c].arrive()
            empty[s].arrive(); yield
            use(slotV,sp,t-1,"V"); yield   # P V (t-1) still reading until wait_group 0
            emptyV[sp].arrive(); yield
        sl=(nkb-1)%S
        while not fullV[sl].done(par(nkb-1)): yield
        if turns: yield from named[3+c].sync()
        use(slotV,sl,nkb-1,"V"); yield
        if turns and c==0: named[4-c].arrive()
        emptyV[sl].arrive(); yield
    def drain(w):
        for k in range(nkb):
            s=k%S; p=(k//S)%2
            while not full[s].done(p): yield
            while not fullV[s].done(p): yield
            empty[s].arrive(); emptyV[s].arrive(); yield
    agents=[("prod",producer())]+[("c0w%d"%w,pipelined(0)) for w in range(4)]+\
           [("c1w%d"%w,(drain(w) if idle1 else pipelined(1))) for w in range(4)]
    live=dict(agents)
    # blocked detection: an agent that yields while waiting made no progress;
    # we track global progress by counting state changes.
    stuck=0
    while live or tma:
        choices=list(live.keys())+(["tma"] if tma else [])
        c=rng.choice(choices)
        if c=="tma":
            i=rng.randrange(len(tma)); bar,b,arr,s,blk=tma.pop(i)
            arr[s]=blk; bar.complete(b); stuck=0; continue
        before=(tuple(x.c for x in full+fullV+empty+emptyV),tuple(x.pending for x in full+fullV+empty+emptyV),len(tma),tuple((n.arrived,n.gen) for n in named.values()))
        try:
            next(live[c])
        except StopIteration:
            del live[c]; stuck=0; continue
        after=(tuple(x.c for x in full+fullV+empty+emptyV),tuple(x.pending for x in full+fullV+empty+emptyV),len(tma),tuple((n.arrived,n.gen) for n in named.values()))
        if before!=after: stuck=0
        else:
            stuck+=1
            if stuck>20000:
                return "DEADLOCK: live=%s tma=%d"%(sorted(live),len(tma))
    return None

bad=0
for seed in range(int(sys.argv[1]) if len(sys.argv)>1 else 3000):
    for nkb in (1,2,3,4,5,7):
        for idle in (True,False):
            try:
                r=run(nkb,3,idle,seed)
            except AssertionError as e:
                r="ASSERT: %s"%e
            if r:
                print("seed",seed,"nkb",nkb,"idle",idle,r); bad+=1
                if bad>5: sys.exit(1)
print("done, bad =",bad)
