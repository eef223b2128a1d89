"""Writes a random but valid InferenceX master config (YAML) for differential tests.

Usage: gen_config.py SEED OUT.yaml   (needs PyYAML; the same seed gives the same file)
Single-node and multinode entries, fixed and agentic scenarios, ranges and lists,
disaggregation, DRAM offload: the shapes the generator must expand identically.
"""
import random
import sys

import yaml

R = random.Random(int(sys.argv[1]))
def conc():
    c = R.random()
    if c < 0.45:
        s = R.choice([1,2,3,4,8,16,32,64]); e = s * R.choice([1,2,4,8,16,64]) + R.choice([0,0,3])
        return {'conc-start': s, 'conc-end': e}
    if c < 0.9:
        return {'conc-list': [R.choice([1,2,4,8,12,16,24,32,64,128,256]) for _ in range(R.randint(1,5))]}
    return R.choice([{'conc-list': [], 'conc-start': 1, 'conc-end': 4}, {'conc-start': 4, 'conc-end': 4}])
def worker():
    w = {'num-worker': R.choice([1,2,4]), 'tp': R.choice([1,2,4,8]), 'ep': R.choice([1,2,4,8]), 'dp-attn': R.choice([True, False])}
    if R.random() < 0.3: w['pp'] = R.choice([1,2])
    if R.random() < 0.2: w['additional-settings'] = ['A=1']
    return w
def sn_entry():
    e = {'tp': R.choice([1,2,4,8])}
    if R.random() < 0.5: e['ep'] = R.choice([1,2,4,8,16])
    if R.random() < 0.4: e['dp-attn'] = R.choice([True, False])
    if R.random() < 0.4: e['spec-decoding'] = R.choice(['mtp','none','draft_model'])
    if R.random() < 0.2: e['pp'] = R.choice([1,2])
    e.update(conc()); return e
def mn_entry(disagg):
    e = {'prefill': worker(), 'decode': worker()}
    if R.random() < 0.3: e['spec-decoding'] = 'mtp'
    if disagg: e['kv-p2p-transfer'] = 'nixl'
    e.update(conc()); return e
def ag_entry(mn):
    if mn:
        e = {'prefill': worker(), 'decode': worker(), 'kv-offloading': R.choice(['none','dram'])}
        e['prefill']['tp'] = R.choice([1,2,4,8]); e['prefill']['pp'] = 1
        if e['kv-offloading'] == 'dram': e['kv-offload-backend'] = {'name': R.choice(['mooncake','hicache'])}
    else:
        e = {'tp': R.choice([1,2,4,8]), 'kv-offloading': R.choice(['none','dram'])}
        if e['kv-offloading'] == 'dram': e['kv-offload-backend'] = {'name': 'lmcache', 'version': '1.0'}
        if R.random() < 0.4: e['spec-decoding'] = 'mtp'
        if R.random() < 0.3: e['ep'] = R.choice([2,4])
    e.update(conc()); return e
cfg = {}
for i in range(R.randint(1, 12)):
    mn = R.random() < 0.4
    agentic = R.random() < 0.35
    disagg = mn and R.random() < 0.5
    e = {'image': 'img:%d' % R.randint(0,2), 'model': R.choice(['org/a','org/b']), 'model-prefix': R.choice(['pa','pb']),
         'precision': R.choice(['fp4','fp8']), 'framework': R.choice(['vllm','sglang']),
         'runner': 'cluster:edge-8' if agentic else R.choice(['mi300x','h100', 'cluster:edge-8']), 'multinode': mn}
    if disagg: e['disagg'] = True
    sc = {}
    if not agentic or R.random() < 0.5:
        sls = []
        for _ in range(R.randint(1,3)):
            isl, osl = R.choice([(8192,1024),(8192,1024),(1024,1024),(2048,128)])
            sls.append({'isl': isl, 'osl': osl, 'search-space': [mn_entry(disagg) if mn else sn_entry() for _ in range(R.randint(1,4))]})
        sc['fixed-seq-len'] = sls
    if agentic:
        ags = []
        for _ in range(R.randint(1,2)):
            ss = [ag_entry(mn) for _ in range(R.randint(1,3))]
            if disagg:
                for s in ss: s['kv-p2p-transfer'] = 'nixl'
            a = {'search-space': ss}
            if any(s['kv-offloading'] == 'dram' for s in ss) or R.random() < 0.3: a['dram-utilization'] = R.choice([0.8, 0.333, 0.5, 1])
            ags.append(a)
        sc['agentic-coding'] = ags
    e['scenarios'] = sc
    cfg['k%d-%s' % (i, 'mn' if mn else 'sn')] = e
open(sys.argv[2], 'w').write(yaml.safe_dump(cfg, sort_keys=False))
