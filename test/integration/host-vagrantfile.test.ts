// vms/Vagrantfile evaluated by real Ruby with a recording stand-in for Vagrant's config object:
// checks the spec validation messages and what each machine gets, without starting Vagrant.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const VAGRANTFILE = fileURLToPath(new URL('../../vms/Vagrantfile', import.meta.url));
const hasRuby = spawnSync('ruby', ['--version']).status === 0 ? false : 'ruby not installed (comes with vagrant)';

// Records every setter call as "path=value" and every block as nested paths.
const STUB = `
require "json"
class Rec
  def initialize(log, path) @log, @path = log, path end
  def method_missing(name, *args, **kw, &blk)
    n = name.to_s
    if n.end_with?("=") then @log << "#{@path}#{n}#{args[0].inspect}"; return args[0] end
    @log << "#{@path}#{n}(#{(args + (kw.empty? ? [] : [kw])).map(&:inspect).join(', ')})" unless args.empty? && kw.empty?
    child = Rec.new(@log, "#{@path}#{n}#{args.empty? || n == "define" || n == "provider" ? "" : ""}#{n == "define" || n == "provider" ? "[#{args[0]}]" : ""}.")
    blk.call(child) if blk
    child
  end
  def respond_to_missing?(*) true end
end
module Vagrant
  LOG = []
  def self.configure(_v) yield Rec.new(LOG, "") end
end
begin
  load ARGV[0]
  puts JSON.generate(Vagrant::LOG)
rescue ArgumentError => e
  warn e.message; exit 3
end
`;

const spec = {
  runId: 'r1',
  box: 'nomad-reboot-harness/bookworm',
  provider: 'libvirt',
  cpus: 1,
  memoryMb: 768,
  machines: [
    { name: 'nrh-r1-server', role: 'server', privateIp: '10.199.3.10' },
    { name: 'nrh-r1-client', role: 'client', privateIp: '10.199.3.11' },
  ],
  privateNetwork: { name: 'nrh-r1-priv', subnet: '10.199.3.0/24' },
  libvirt: {
    driver: 'qemu',
    tbCacheMb: 256,
    cpuModel: 'Nehalem',
    managementNetwork: { name: 'nrh-r1-mgmt', address: '10.198.3.0/24' },
    serialLogDir: '/var/tmp/r1',
  },
  bootTimeoutS: 600,
};

function evaluate(dir: string, s: unknown) {
  writeFileSync(`${dir}/stub.rb`, STUB);
  writeFileSync(`${dir}/lab-spec.json`, typeof s === 'string' ? s : JSON.stringify(s));
  const r = spawnSync('ruby', [`${dir}/stub.rb`, VAGRANTFILE], {
    encoding: 'utf8',
    env: { ...process.env, HARNESS_LAB_SPEC: `${dir}/lab-spec.json` },
  });
  return { code: r.status, log: r.status === 0 ? (JSON.parse(r.stdout) as string[]) : [], err: r.stderr };
}

t.test('a valid libvirt spec defines every machine as the lab needs', { skip: hasRuby }, async (t) => {
  const { code, log, err } = evaluate(t.testdir({}), spec);
  t.equal(code, 0, err);
  const has = (line: string) => t.ok(log.includes(line), line);
  has('vm.box="nomad-reboot-harness/bookworm"');
  has('vm.boot_timeout=600');
  has('vm.synced_folder(".", "/vagrant", {:disabled=>true})');
  has('vm.provider[libvirt].driver="qemu"');
  has('vm.provider[libvirt].cpu_mode="custom"');
  has('vm.provider[libvirt].cpu_model="Nehalem"');
  has('vm.provider[libvirt].management_network_name="nrh-r1-mgmt"');
  has('vm.provider[libvirt].management_network_address="10.198.3.0/24"');
  has('vm.provider[libvirt].default_prefix=""');
  has('vm.provider[libvirt].graphics_type="none"');
  t.notOk(
    log.some((l) => l.includes('features')),
    'no XML smuggled into a feature name (the tb-cache goes through a hook)',
  );
  has('vm.define[nrh-r1-client].vm.hostname="client"');
  has(
    'vm.define[nrh-r1-client].vm.network(:private_network, {:ip=>"10.199.3.11", :netmask=>"255.255.255.0", :libvirt__network_name=>"nrh-r1-priv", :libvirt__forward_mode=>"none", :libvirt__dhcp_enabled=>false})',
  );
  has(
    'vm.define[nrh-r1-server].vm.provider[libvirt].serial({:type=>"file", :source=>{:path=>"/var/tmp/r1/nrh-r1-server-serial.log"}})',
  );
  t.notOk(
    log.some((l) => l.includes('virtualbox')),
    'no virtualbox block for libvirt',
  );
});

t.test(
  'a cluster: the hostname of each machine is its slot name (the Nomad node name)',
  { skip: hasRuby },
  async (t) => {
    const machines = [
      { name: 'nrh-r1-server-1', role: 'server', slot: 'server-1', privateIp: '10.199.3.10' },
      { name: 'nrh-r1-client-1', role: 'client', slot: 'client-1', privateIp: '10.199.3.11' },
      { name: 'nrh-r1-client-2', role: 'client', slot: 'client-2', privateIp: '10.199.3.12' },
    ];
    const { code, log, err } = evaluate(t.testdir({}), { ...spec, machines });
    t.equal(code, 0, err);
    for (const m of machines) t.ok(log.includes(`vm.define[${m.name}].vm.hostname="${m.slot}"`), m.slot);
    t.ok(log.some((l) => l.startsWith('vm.define[nrh-r1-client-2].vm.network(:private_network, {:ip=>"10.199.3.12"')));
    const r = evaluate(t.testdir({}), { ...spec, machines: [{ ...machines[0], slot: 'a b' }] });
    t.equal(r.code, 3);
    t.match(r.err, /field machines\[0\]\.slot: expected a name of letters, digits/);
  },
);

t.test(
  'kvm and tbCacheMb 0 skip the TCG-only settings; virtualbox gets cpus/memory and an internal network',
  { skip: hasRuby },
  async (t) => {
    const kvm = evaluate(t.testdir({}), { ...spec, libvirt: { ...spec.libvirt, driver: 'kvm' } });
    t.equal(kvm.code, 0, kvm.err);
    t.notOk(kvm.log.some((l) => l.includes('cpu_mode') || l.includes('features')));
    const noTb = evaluate(t.testdir({}), { ...spec, libvirt: { ...spec.libvirt, tbCacheMb: 0 } });
    t.ok(noTb.log.includes('vm.provider[libvirt].cpu_mode="custom"'));
    t.notOk(noTb.log.some((l) => l.includes('features')));
    const vb = evaluate(t.testdir({}), { ...spec, provider: 'virtualbox', libvirt: undefined });
    t.equal(vb.code, 0, vb.err);
    t.ok(vb.log.includes('vm.provider[virtualbox].memory=768'));
    t.ok(vb.log.includes('vm.provider[virtualbox].cpus=1'));
    t.ok(vb.log.some((l) => l.includes(':virtualbox__intnet=>"nrh-r1-priv"')));
  },
);

t.test('invalid specs fail with a message naming the field', { skip: hasRuby }, async (t) => {
  const bad = (s: unknown, re: RegExp) => {
    const r = evaluate(t.testdir({}), s);
    t.equal(r.code, 3, `exit 3 for ${re}`);
    t.match(r.err, re);
  };
  bad('{not json', /lab spec .*lab-spec\.json: field \(file\): not valid JSON/);
  bad({ ...spec, machines: [] }, /field machines: expected a non-empty array, got \[\]/);
  bad(
    { ...spec, machines: [{ ...spec.machines[0], privateIp: '10.199.3.300' }] },
    /field machines\[0\]\.privateIp: expected an IPv4 address, got "10\.199\.3\.300"/,
  );
  bad(
    { ...spec, machines: [spec.machines[0], spec.machines[0]] },
    /field machines: duplicate machine name "nrh-r1-server"/,
  );
  bad(
    { ...spec, libvirt: { ...spec.libvirt, driver: 'hvf' } },
    /field libvirt\.driver: expected "kvm" or "qemu", got "hvf"/,
  );
  bad(
    { ...spec, libvirt: { ...spec.libvirt, serialLogDir: 'relative' } },
    /field libvirt\.serialLogDir: expected an absolute path/,
  );
  bad(
    { ...spec, privateNetwork: { name: 'x', subnet: '10.199.3.0' } },
    /field privateNetwork\.subnet: expected an IPv4 CIDR/,
  );
  bad({ ...spec, bootTimeoutS: '600' }, /field bootTimeoutS: expected an integer > 0, got "600"/);
  bad({ ...spec, provider: 'vmware' }, /field provider: expected "libvirt" or "virtualbox"/);
  const missing = evaluate(t.testdir({}), spec);
  t.equal(missing.code, 0);
});

// The tb-cache hook, checked with real Ruby and REXML on a real `virsh dumpxml` of a vagrant-libvirt domain
// (test/fixtures/vagrant/libvirt-dumpxml-tcg.xml, taken after the hook ran; its <tcg> is removed to get the XML
// vagrant-libvirt defines). A stand-in for Vagrant's plugin API records the hook registration.
const HOOK_DRIVER = `
require "json"
module Vagrant
  def self.configure(_v) yield(Class.new { def method_missing(*) self end; def respond_to_missing?(*) true end }.new) end
  HOOKS = []
  class PluginBase
    def self.name(*a) a.empty? ? super() : nil end
    def self.action_hook(name, key, &blk)
      hook = Object.new
      def hook.prepend(cls) @prepended = cls end
      def hook.prepended() @prepended end
      blk.call(hook)
      HOOKS << [name.to_s, key.to_s, hook.prepended.to_s]
    end
  end
  def self.plugin(_v) PluginBase end
end
load ARGV[0]
load ARGV[0] # a second load must not register the hook twice
xml = File.read(ARGV[1])
bare = xml.sub(%r{\\s*<tcg>.*?</tcg>}m, "")
added = NrhTbCache.with_tb_cache(bare, 256)
out = {
  hooks: Vagrant::HOOKS,
  bareHasTcg: bare.include?("<tcg>"),
  added: added,
  again: NrhTbCache.with_tb_cache(added, 256),
  libvirtStored: NrhTbCache.with_tb_cache(xml, 256),
  resized: NrhTbCache.with_tb_cache(xml, 128),
}
puts JSON.generate(out)
`;

t.test(
  'the TCG translation cache goes in through a Vagrant hook as libvirt XML, not smuggled into a feature name',
  { skip: hasRuby },
  async (t) => {
    const dir = t.testdir({ 'hook.rb': HOOK_DRIVER, 'lab-spec.json': JSON.stringify(spec) });
    const fixture = fileURLToPath(new URL('../fixtures/vagrant/libvirt-dumpxml-tcg.xml', import.meta.url));
    const r = spawnSync('ruby', [`${dir}/hook.rb`, VAGRANTFILE, fixture], {
      encoding: 'utf8',
      env: { ...process.env, HARNESS_LAB_SPEC: `${dir}/lab-spec.json` },
    });
    t.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      hooks: string[][];
      bareHasTcg: boolean;
      added: string;
      again: null;
      libvirtStored: null;
      resized: string;
    };
    t.same(
      out.hooks,
      [['nrh_tb_cache', 'VagrantPlugins::ProviderLibvirt::Action::StartDomain', 'NrhTbCache::Action']],
      'one hook, before StartDomain',
    );
    t.equal(out.bareHasTcg, false, 'the fixture without its <tcg> is what vagrant-libvirt defines');
    t.match(
      out.added,
      /<features>\s*<acpi\/>\s*<apic\/>\s*<pae\/>\s*<tcg><tb-cache unit='MiB'>256<\/tb-cache><\/tcg><\/features>/,
    );
    t.match(out.added, /<name>rtbcache1-client<\/name>[\s\S]*<devices>/, 'the rest of the domain is kept');
    t.equal(out.again, null, 'already set: nothing to redefine');
    t.equal(out.libvirtStored, null, "libvirt's own form (262144 KiB) counts as 256 MiB");
    t.match(out.resized, /<tcg>\s*<tb-cache unit='MiB'>128<\/tb-cache>\s*<\/tcg>/);
    t.equal(out.resized.match(/<tb-cache/g)?.length, 1, 'the old size is replaced, not doubled');
  },
);
