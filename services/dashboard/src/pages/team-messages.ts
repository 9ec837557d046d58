import type { Language } from '@dzpay/contracts';

/** The Team page's texts beyond the core's (messages.ts): roles, invitations, disabling. */
const en = {
  role: 'Role',
  yourRole: 'Your role:',
  inviteRole: 'Their role',
  changeRole: 'Change the role',
  roleOf: (email: string) => `Role of ${email}`,
  disable: 'Disable',
  enable: 'Enable',
  you: 'you',
  pendingTitle: 'Pending invitations',
  noPending: 'No invitation is waiting.',
  expires: 'Expires',
  revokeInvite: 'Revoke',
  inviteRevoked: (email: string) =>
    `The invitation of ${email} was revoked: its link no longer works.`,
  roleChanged: (email: string, role: string) => `${email} is now ${role}.`,
  userDisabled: (email: string) =>
    `${email} is disabled: signed out everywhere, and cannot sign in any more.`,
  userEnabled: (email: string) => `${email} can sign in again.`,
  refusedSelf: 'You cannot change your own role or disable yourself.',
  refusedOwner: 'Only an owner can change, disable or invite an owner.',
  refusedNoLonger: 'Your own role no longer lets you manage the team. Reload the page.',
  refusedLastOwner: 'The team must keep at least one active owner.',
  refusedRole: 'Choose one of the roles listed.',
  notInTeam: 'This person is not in your team, or this invitation no longer waits.',
  roleHelp:
    'Owner: everything. Administrator: everything but the owners. Developer: API keys and webhooks, reads payments. Accountant: reads and exports payments, the report, the balance and the activity log; never refunds or changes anything.',
  mailSubject: (merchant: string) => `You are invited to the dzpay dashboard of ${merchant}`,
  mailHello: 'Hello,',
  mailIntro: (inviter: string, merchant: string, role: string) =>
    `${inviter} invites you to the dzpay dashboard of ${merchant}, as ${role}. Open the link to choose your password and create your account.`,
  mailButton: 'Accept the invitation',
  mailExpiry: (hours: number) => `The link works once, for ${hours} hours.`,
  mailIgnore:
    'If you do not know this business or did not expect this, ignore this email: no account is made without it.',
};

type TeamText = typeof en;

const fr: TeamText = {
  role: 'Rôle',
  yourRole: 'Votre rôle :',
  inviteRole: 'Son rôle',
  changeRole: 'Changer le rôle',
  roleOf: (email) => `Rôle de ${email}`,
  disable: 'Désactiver',
  enable: 'Réactiver',
  you: 'vous',
  pendingTitle: 'Invitations en attente',
  noPending: 'Aucune invitation en attente.',
  expires: 'Expire le',
  revokeInvite: 'Révoquer',
  inviteRevoked: (email) => `L’invitation de ${email} est révoquée : son lien ne fonctionne plus.`,
  roleChanged: (email, role) => `${email} est désormais ${role}.`,
  userDisabled: (email) =>
    `${email} est désactivé : déconnecté partout, il ne peut plus se connecter.`,
  userEnabled: (email) => `${email} peut de nouveau se connecter.`,
  refusedSelf: 'Vous ne pouvez ni changer votre propre rôle ni vous désactiver.',
  refusedOwner: 'Seul un propriétaire peut modifier, désactiver ou inviter un propriétaire.',
  refusedNoLonger: 'Votre rôle ne vous permet plus de gérer l’équipe. Rechargez la page.',
  refusedLastOwner: 'L’équipe doit garder au moins un propriétaire actif.',
  refusedRole: 'Choisissez l’un des rôles proposés.',
  notInTeam:
    'Cette personne n’est pas dans votre équipe, ou cette invitation n’est plus en attente.',
  roleHelp:
    'Propriétaire : tout. Administrateur : tout sauf les propriétaires. Développeur : clés API et webhooks, consulte les paiements. Comptable : consulte et exporte les paiements, le rapport, le solde et le journal ; ne rembourse et ne modifie jamais rien.',
  mailSubject: (merchant) => `Invitation au tableau de bord dzpay de ${merchant}`,
  mailHello: 'Bonjour,',
  mailIntro: (inviter, merchant, role) =>
    `${inviter} vous invite sur le tableau de bord dzpay de ${merchant}, en tant que ${role}. Ouvrez le lien pour choisir votre mot de passe et créer votre compte.`,
  mailButton: 'Accepter l’invitation',
  mailExpiry: (hours) => `Le lien sert une fois, pendant ${hours} heures.`,
  mailIgnore:
    'Si vous ne connaissez pas cette entreprise ou n’attendiez pas ce message, ignorez-le : aucun compte n’est créé sans ce lien.',
};

const ar: TeamText = {
  role: 'الدور',
  yourRole: 'دورك:',
  inviteRole: 'دوره',
  changeRole: 'تغيير الدور',
  roleOf: (email) => `دور ${email}`,
  disable: 'تعطيل',
  enable: 'إعادة التفعيل',
  you: 'أنت',
  pendingTitle: 'دعوات في الانتظار',
  noPending: 'لا توجد دعوة في الانتظار.',
  expires: 'تنتهي في',
  revokeInvite: 'إلغاء',
  inviteRevoked: (email) => `أُلغيت دعوة ${email}: رابطها لم يعد يعمل.`,
  roleChanged: (email, role) => `أصبح دور ${email}: ${role}.`,
  userDisabled: (email) => `عُطّل ${email}: خرج من كل الجلسات ولم يعد بإمكانه الدخول.`,
  userEnabled: (email) => `يمكن لـ ${email} الدخول من جديد.`,
  refusedSelf: 'لا يمكنك تغيير دورك ولا تعطيل حسابك.',
  refusedOwner: 'وحده المالك يمكنه تعديل مالك أو تعطيله أو دعوته.',
  refusedNoLonger: 'لم يعد دورك يسمح لك بإدارة الفريق. أعد تحميل الصفحة.',
  refusedLastOwner: 'يجب أن يبقى في الفريق مالك نشط واحد على الأقل.',
  refusedRole: 'اختر أحد الأدوار المقترحة.',
  notInTeam: 'هذا الشخص ليس في فريقك، أو هذه الدعوة لم تعد في الانتظار.',
  roleHelp:
    'المالك: كل شيء. المسؤول: كل شيء ما عدا الملاك. المطوّر: مفاتيح API والإشعارات، ويطّلع على المدفوعات. المحاسب: يطّلع على المدفوعات والتقرير والرصيد وسجل النشاط ويصدّرها، ولا يسترجع ولا يغيّر شيئًا أبدًا.',
  mailSubject: (merchant) => `دعوة إلى لوحة تحكم dzpay الخاصة بـ ${merchant}`,
  mailHello: 'مرحبًا،',
  mailIntro: (inviter, merchant, role) =>
    `يدعوك ${inviter} إلى لوحة تحكم dzpay الخاصة بـ ${merchant} بدور ${role}. افتح الرابط لاختيار كلمة المرور وإنشاء حسابك.`,
  mailButton: 'قبول الدعوة',
  mailExpiry: (hours) => `يصلح الرابط مرة واحدة خلال ${hours} ساعة.`,
  mailIgnore:
    'إن كنت لا تعرف هذا النشاط أو لم تنتظر هذه الرسالة فتجاهلها: لا يُنشأ أي حساب من دون هذا الرابط.',
};

export const TeamMessages: Record<Language, TeamText> = { en, fr, ar };
